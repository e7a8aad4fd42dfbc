"""Crashes between the steps of the commit protocol, and zombie writers: exactly once, no gaps."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from connect.api import ConnectError, TopicPartition
from spark_sink.faults import CommitStep
from spark_sink.layout import GROUP_COLUMN
from tests.support.spark_harness import SinkHarness, json_records, offsets_by_partition, read_dataset

pytestmark = pytest.mark.spark

TP0 = TopicPartition("events", 0)
TP1 = TopicPartition("events", 1)
TOTAL = 120


class SimulatedCrash(Exception):
    """Raised by the fault injector: the writer stops right there, as if the process died."""


def crash_at(step: CommitStep, occurrence: int = 1) -> Callable[[CommitStep, TopicPartition | None], None]:
    seen = {"n": 0}

    def inject(at: CommitStep, tp: TopicPartition | None) -> None:
        if at is step:
            seen["n"] += 1
            if seen["n"] == occurrence:
                raise SimulatedCrash(f"crash after {step.value}")

    return inject


def replay(sink: SinkHarness, resume: dict[TopicPartition, int], upto: int) -> None:
    """What the consumer delivers after the task's rewinds (from the group's start when there is none)."""
    for tp in (TP0, TP1):
        sink.put(json_records(tp, range(resume.get(tp, 0), upto)))


@pytest.mark.parametrize(
    ("step", "occurrence"),
    [
        (CommitStep.STAGED, 1),
        (CommitStep.MANIFEST_CREATED, 1),
        (CommitStep.MANIFEST_CREATED, 2),
        (CommitStep.FILE_MOVED, 1),
        (CommitStep.PUBLISHED, 1),
        (CommitStep.STAGING_DELETED, 1),
        (CommitStep.STAGED, 2),
    ],
    ids=lambda v: v.value if isinstance(v, CommitStep) else str(v),
)
def test_a_new_task_recovers_after_a_crash_at_each_step(
    harness_factory: Callable[..., SinkHarness], spark: Any, tmp_path: Path, step: CommitStep, occurrence: int
) -> None:
    root = tmp_path / "out"
    crashed = harness_factory(flush_size=30, store_kafka_metadata="true")
    crashed.task.fault_injector = crash_at(step, occurrence)
    crashed.open(TP0, TP1)
    for start in range(0, 90, 30):
        try:
            crashed.put(json_records(TP0, range(start, start + 30)) + json_records(TP1, range(start, start + 30)))
        except ConnectError:
            break  # the task failed: the runtime stops feeding it
        crashed.task.wait_until_written(60)
    assert not crashed.task.wait_until_written(1), "the writer stopped at the injected crash"
    with pytest.raises(ConnectError, match="crash after"):
        crashed.put([])
    crashed.stop()  # the process is gone: nothing of it runs any more

    # Published files never show a partial epoch to readers, whatever step the crash hit.
    if (root / "topics").exists():
        before = offsets_by_partition(read_dataset(root))
        for offsets in before.values():
            assert offsets == list(range(len(offsets))), "a prefix of the offsets, each once"

    recovered = harness_factory(flush_size=30, store_kafka_metadata="true")
    resume = recovered.open(TP0, TP1)
    replay(recovered, resume, TOTAL)
    assert recovered.flush_all() == {TP0: TOTAL, TP1: TOTAL}
    assert offsets_by_partition(read_dataset(root)) == {0: list(range(TOTAL)), 1: list(range(TOTAL))}
    assert spark.read.parquet(str(root)).count() == 2 * TOTAL, "Spark ignores _staging and _commits too"

    # The next assignment sweeps whatever the crashed writer left in staging.
    recovered.open(TP0, TP1)
    assert list((root / "_staging").iterdir()) == []


def test_staging_a_killed_writer_left_is_swept_once_the_new_owner_commits_past_it(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    root = tmp_path / "out"
    # What a writer killed with -9 after staging leaves: a group for manifest 0 of TP1, never committed.
    # At the next assignment it is undecided (no manifest 0 yet), so that sweep must keep it.
    dead_group = root / "_staging" / "0123456789ab-00000001" / "s0" / f"{GROUP_COLUMN}={TP1.topic}+1+0+0"
    dead_group.mkdir(parents=True)
    (dead_group / "part-00000.snappy.parquet").write_bytes(b"staged by a killed writer")

    sink = harness_factory(flush_size=30, store_kafka_metadata="true")
    sink.task.staging_resweep_ms = 0  # due at every commit rather than once a minute
    sink.open(TP0, TP1)
    assert dead_group.is_dir(), "undecided at the assignment: kept"
    replay(sink, {}, 60)
    # The new owner's manifest 0 of TP1 decides the group: the next commit (flush_all's) sweeps it away.
    assert sink.flush_all() == {TP0: 60, TP1: 60}
    assert list((root / "_staging").iterdir()) == []
    assert offsets_by_partition(read_dataset(root)) == {0: list(range(60)), 1: list(range(60))}


def test_a_zombie_loses_the_manifest_race_and_rewinds(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    owner = harness_factory(flush_size=50, store_kafka_metadata="true")
    zombie = harness_factory(flush_size=50, store_kafka_metadata="true")
    zombie.open(TP0)  # both believe they own the partition: same view of the manifests
    owner.open(TP0)
    owner.put(json_records(TP0, range(0, 100)))
    assert owner.flush_all() == {TP0: 100}

    zombie.put(json_records(TP0, range(0, 50)))
    assert zombie.task.wait_until_written(60)
    zombie.put([])  # learns it lost: recovers from the owner's manifests
    assert zombie.context.take_offsets() == {TP0: 100}
    assert zombie.task.pre_commit({}) == {TP0: 100}
    assert offsets_by_partition(read_dataset(tmp_path / "out")) == {0: list(range(100))}
    assert list((tmp_path / "out" / "_staging").iterdir()) == [], "the loser deleted its staged files"


def test_the_owner_that_lost_the_race_resumes_after_the_winner(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    late = harness_factory(flush_size=50, store_kafka_metadata="true")
    early = harness_factory(flush_size=50, store_kafka_metadata="true")
    late.open(TP0)
    early.open(TP0)
    early.put(json_records(TP0, range(0, 50)))
    assert early.flush_all() == {TP0: 50}

    late.put(json_records(TP0, range(0, 100)))
    assert late.task.wait_until_written(60)
    late.put(json_records(TP0, range(100, 110)))  # records still in flight are dropped until the rewind
    assert late.context.take_offsets() == {TP0: 50}
    late.put(json_records(TP0, range(50, 100)))
    assert late.flush_all() == {TP0: 100}
    assert offsets_by_partition(read_dataset(tmp_path / "out")) == {0: list(range(100))}


def test_revoked_partitions_are_never_committed_after_close(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    sink = harness_factory(flush_size=20, store_kafka_metadata="true")
    release = threading.Event()
    staged = threading.Event()

    def hold(step: CommitStep, tp: TopicPartition | None) -> None:
        if step is CommitStep.STAGED:
            staged.set()
            release.wait(30)

    sink.task.fault_injector = hold
    sink.open(TP0, TP1)
    sink.put(json_records(TP0, range(20)) + json_records(TP1, range(20)))
    assert staged.wait(60), "the writer reached the commit point"
    sink.task.close([TP0])  # rebalance while the Spark job of the epoch is done but nothing is committed
    release.set()
    assert sink.task.wait_until_written(60)
    assert sink.task.pre_commit({}) == {TP1: 20}
    assert offsets_by_partition(read_dataset(tmp_path / "out")) == {1: list(range(20))}
    assert not (tmp_path / "out" / "_commits" / "events" / "0").exists()
