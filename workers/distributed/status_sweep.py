"""`StatusSweep`: the balancer's housekeeping of the status topic, so that deleted work leaves no status behind.

A status is **backed** while the config log has its unit: `status-connector-<c>` and the topic records
`status-topic-<t>:connector-<c>` while connector c exists, `status-task-<c>-<n>` while n is below c's
committed task count. The owner of slot 0 (the balancer) tombstones every unbacked status it has read,
at each of its steps, before it publishes a placement. So a connector deleted while its owner was dead,
or a task dropped while its worker was gone, still has its statuses deleted, by a worker that is alive.

Why the balancer, and why before it places: a tombstone in Kafka is unconditional, so it must never land
after a status of a **new** incarnation of the same name (a connector re-created, a task count grown back),
or that status would vanish. A unit starts only from a placement decided after its last removal
(`wanted.startable`), and the balancer decides placements on the same thread, from config snapshots that
only grow, after the tombstones of this step were acknowledged by Kafka. Whatever the balancer deletes
was unbacked in a snapshot no newer than that of any placement that could start its next incarnation:
the new incarnation's statuses are written after the tombstones. (A new balancer reads the config log to
its end before it acts, so its snapshot covers every placement its predecessors published.) Statuses of
an old incarnation on a key that is backed again are not deleted but overwritten by the new instance;
readers ignore them meanwhile (`current_statuses.py`).

A status written again after its tombstone (an old instance stopping late on a slow worker) is unbacked
too, and deleted at a later step. Topic records of a connector that still exists are deleted once for
each of its removals the balancer sees while it holds slot 0 (they carry no generation to tell old from
new); a connector deleted and re-created while slot 0 had no live owner keeps its old topic records.

Threads: the coordinator thread only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.stores import ClusterConfigState, StoredStatuses
from workers.distributed.ports import StatusPort

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Orphans:
    """Statuses to delete: connectors, tasks, and (topic, connector) records."""

    connectors: tuple[str, ...] = ()
    tasks: tuple[ConnectorTaskId, ...] = ()
    topics: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.connectors or self.tasks or self.topics)


def orphans(snapshot: ClusterConfigState, stored: StoredStatuses) -> Orphans:
    """The stored statuses `snapshot` does not back."""
    backed_tasks = {task for name in snapshot.connectors() for task in snapshot.tasks(name)}
    return Orphans(
        tuple(sorted(c for c in stored.connectors if not snapshot.contains(c))),
        tuple(sorted(t for t in stored.tasks if t not in backed_tasks)),
        tuple(sorted(p for p in stored.topics if not snapshot.contains(p[1]))),
    )


class StatusSweep:
    def __init__(self, store: StatusPort, timeout: float) -> None:
        self._store = store
        self._timeout = timeout
        # What this sweep deleted, with the value it deleted: not sent again until read back or rewritten.
        self._sent: dict[object, object] = {}
        self._tenure: int | None = None
        self._removals_seen: dict[str, int] = {}

    def run(self, snapshot: ClusterConfigState, tenure: int) -> Orphans:
        """Delete what `snapshot` does not back; returns once Kafka acknowledged it (raises if it did not).

        `tenure` is this worker's slot-0 epoch: a new one means the predecessor handled earlier removals.
        """
        if tenure != self._tenure:
            self._tenure = tenure
            self._removals_seen = dict(snapshot.connector_removals)
        stored = self._store.stored()
        found = orphans(snapshot, stored)
        recreated = {
            name
            for name, offset in snapshot.connector_removals.items()
            if snapshot.contains(name) and offset > self._removals_seen.get(name, -1)
        }
        self._removals_seen = dict(snapshot.connector_removals)
        topics = sorted({*found.topics, *(p for p in stored.topics if p[1] in recreated)})
        values: dict[object, object] = {
            **{("connector", c): stored.connectors[c] for c in found.connectors},
            **{t: stored.tasks[t] for t in found.tasks},
            **{("topic", *p): stored.topics[p] for p in topics},
        }
        current = {
            *(("connector", c) for c in stored.connectors),
            *stored.tasks,
            *(("topic", *p) for p in stored.topics),
        }
        self._sent = {k: v for k, v in self._sent.items() if k in current}
        due = Orphans(
            tuple(c for c in found.connectors if self._due(("connector", c), values)),
            tuple(t for t in found.tasks if self._due(t, values)),
            tuple(p for p in topics if self._due(("topic", *p), values)),
        )
        if not due:
            return due
        self._store.tombstone(connectors=due.connectors, tasks=due.tasks, topics=due.topics, timeout=self._timeout)
        for key in (
            *(("connector", c) for c in due.connectors),
            *due.tasks,
            *(("topic", *p) for p in due.topics),
        ):
            self._sent[key] = values[key]
        log.info(
            "Deleted the statuses of %d connector(s), %d task(s) and %d topic record(s) that no longer exist",
            len(due.connectors),
            len(due.tasks),
            len(due.topics),
        )
        return due

    def _due(self, key: object, values: dict[object, object]) -> bool:
        return key not in self._sent or self._sent[key] != values[key]
