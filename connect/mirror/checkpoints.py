"""Which checkpoints a mirror checkpoint task emits and which group offsets it writes on the target (Java's
`MirrorCheckpointTask` decisions and its `CheckpointStore`).

Pure decisions over what the caller read: the source groups' committed offsets, the offset-sync store's
translations, the checkpoints already emitted, and the target groups' offsets.

- A group's offset on an upstream partition becomes a checkpoint for the downstream partition when the store
  translates it (not None, not -1) and the topic filter accepts the topic. The downstream name is the
  remote name (`orders` -> `A.orders`), or, for a topic that came from the target in the first place
  (`B.orders` read on A by the flow A->B), its original name (`orders`): that is how a fail-back finds its
  offsets.
- A checkpoint is emitted only when none exists for its group and partition, when the group rewound
  upstream, or when the downstream offset advanced: checkpoints never go back except after a real rewind.
- `sync.group.offsets.enabled`: offsets are written only for groups with no active member on the target
  (Kafka refuses the others), and never lower an offset the target group already has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from connect.mirror.records import Checkpoint
from connect.mirror.replication_policy import ReplicationPolicy

TopicPartitionKey = tuple[str, int]


@dataclass(frozen=True)
class CommittedOffset:
    offset: int
    metadata: str = ""


def downstream_topic(policy: ReplicationPolicy, source_alias: str, target_alias: str, upstream_topic: str) -> str:
    """The target cluster's name for `upstream_topic` of the source cluster."""
    if policy.topic_source(upstream_topic) == target_alias:
        return policy.original_topic(upstream_topic)
    return policy.format_remote_topic(source_alias, upstream_topic)


def _more_recent(checkpoint: Checkpoint, last: Checkpoint | None) -> bool:
    return (
        last is None
        or checkpoint.upstream_offset < last.upstream_offset
        or checkpoint.downstream_offset > last.downstream_offset
    )


class CheckpointDecisions:
    """The last checkpoint per group and downstream partition, and what follows from it.

    `translate(topic, partition, upstream_offset)` is the offset-sync store's translation; `rename(topic)`
    gives the downstream name; `topic_accepted(topic)` is the flow's topic filter. One thread (the task's)."""

    def __init__(
        self,
        translate: Callable[[str, int, int], int | None],
        rename: Callable[[str], str],
        topic_accepted: Callable[[str], bool],
    ) -> None:
        self._translate = translate
        self._rename = rename
        self._topic_accepted = topic_accepted
        self._last: dict[str, dict[TopicPartitionKey, Checkpoint]] = {}

    def load(self, checkpoints: Iterable[Checkpoint]) -> None:
        """The checkpoints read back from the checkpoints topic at start, oldest first (the last one wins)."""
        for checkpoint in checkpoints:
            self._last.setdefault(checkpoint.group, {})[(checkpoint.topic, checkpoint.partition)] = checkpoint

    def emit(self, group: str, committed: Mapping[TopicPartitionKey, CommittedOffset]) -> list[Checkpoint]:
        """The checkpoints to emit for `group`'s committed source offsets (remembered as emitted)."""
        emitted: list[Checkpoint] = []
        last = self._last.setdefault(group, {})
        for (topic, partition), offset in committed.items():
            if not self._topic_accepted(topic):
                continue
            downstream = self._translate(topic, partition, offset.offset)
            if downstream is None or downstream < 0:
                continue
            key = (self._rename(topic), partition)
            checkpoint = Checkpoint(group, key[0], partition, offset.offset, downstream, offset.metadata)
            if _more_recent(checkpoint, last.get(key)):
                last[key] = checkpoint
                emitted.append(checkpoint)
        return emitted

    def offsets_to_write(
        self, group: str, target_offsets: Mapping[TopicPartitionKey, int | None] | None
    ) -> dict[TopicPartitionKey, CommittedOffset]:
        """What to write for `group` on the target, given its offsets there when it has no active member
        (`None` for a group that is absent or active: everything is offered, and Kafka refuses an active
        group). A partition is written when the target has no offset for it, a reset one, or a lower one."""
        checkpoints = self._last.get(group, {})
        to_write: dict[TopicPartitionKey, CommittedOffset] = {}
        for key, checkpoint in checkpoints.items():
            current = None if target_offsets is None else target_offsets.get(key, -1)
            if current is not None and current >= checkpoint.downstream_offset:
                continue
            to_write[key] = CommittedOffset(checkpoint.downstream_offset, checkpoint.metadata)
        return to_write
