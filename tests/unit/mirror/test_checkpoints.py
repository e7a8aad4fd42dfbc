"""Checkpoints advance downstream, follow real rewinds, skip what cannot be translated, and group offsets on the
target are never lowered (the decisions of Java's `MirrorCheckpointTask`)."""

from __future__ import annotations

from connect.mirror.checkpoints import CheckpointDecisions, CommittedOffset, downstream_topic
from connect.mirror.records import Checkpoint
from connect.mirror.replication_policy import DefaultReplicationPolicy

POLICY = DefaultReplicationPolicy()


def decisions(translations: dict[int, int | None], accepted: str = "orders") -> CheckpointDecisions:
    return CheckpointDecisions(
        translate=lambda topic, partition, offset: translations.get(offset),
        rename=lambda topic: downstream_topic(POLICY, "A", "B", topic),
        topic_accepted=lambda topic: topic == accepted,
    )


def test_remote_names_and_fail_back_names() -> None:
    assert downstream_topic(POLICY, "A", "B", "orders") == "A.orders"
    assert downstream_topic(POLICY, "A", "B", "B.orders") == "orders"  # came from the target: its own name there
    assert downstream_topic(POLICY, "A", "B", "C.orders") == "A.C.orders"


def test_a_checkpoint_is_emitted_when_new_when_the_downstream_offset_advances_or_after_a_rewind() -> None:
    checkpoints = decisions({100: 90, 150: 140, 160: 140, 50: 45})
    assert checkpoints.emit("g", {("orders", 0): CommittedOffset(100, "m")}) == [
        Checkpoint("g", "A.orders", 0, 100, 90, "m")
    ]
    assert checkpoints.emit("g", {("orders", 0): CommittedOffset(100)}) == []  # repeated
    assert [c.downstream_offset for c in checkpoints.emit("g", {("orders", 0): CommittedOffset(150)})] == [140]
    assert checkpoints.emit("g", {("orders", 0): CommittedOffset(160)}) == []  # same downstream offset
    rewound = checkpoints.emit("g", {("orders", 0): CommittedOffset(50)})
    assert [(c.upstream_offset, c.downstream_offset) for c in rewound] == [(50, 45)]


def test_offsets_that_cannot_be_translated_or_are_filtered_give_no_checkpoint() -> None:
    checkpoints = decisions({100: -1, 200: None, 300: 290})
    committed = {
        ("orders", 0): CommittedOffset(100),
        ("orders", 1): CommittedOffset(200),
        ("payments", 0): CommittedOffset(300),
    }
    assert checkpoints.emit("g", committed) == []


def test_checkpoints_read_back_at_start_keep_checkpoints_monotonic() -> None:
    checkpoints = decisions({130: 90, 140: 96})
    checkpoints.load([Checkpoint("g", "A.orders", 0, 100, 80), Checkpoint("g", "A.orders", 0, 120, 95)])
    assert checkpoints.emit("g", {("orders", 0): CommittedOffset(130)}) == []  # would go back from 95
    assert [c.downstream_offset for c in checkpoints.emit("g", {("orders", 0): CommittedOffset(140)})] == [96]


def test_group_offsets_are_written_where_missing_reset_or_lower_and_never_lowered() -> None:
    checkpoints = decisions({100: 90, 200: 190})
    checkpoints.emit("g", {("orders", 0): CommittedOffset(100, "m"), ("orders", 1): CommittedOffset(200)})
    everything = checkpoints.offsets_to_write("g", None)
    assert everything == {("A.orders", 0): CommittedOffset(90, "m"), ("A.orders", 1): CommittedOffset(190)}
    assert checkpoints.offsets_to_write("g", {("A.orders", 0): 95, ("A.orders", 1): 10}) == {
        ("A.orders", 1): CommittedOffset(190)
    }
    assert checkpoints.offsets_to_write("g", {("A.orders", 0): None}) == everything  # reset, and missing
    assert checkpoints.offsets_to_write("g", {("A.orders", 0): 90, ("A.orders", 1): 190}) == {}
