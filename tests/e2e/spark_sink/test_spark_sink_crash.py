"""The Spark Parquet sink under kill -9 in real `kconnect standalone` processes: exactly once, no gaps.

A worker process runs the sink on a topic of sequence-numbered JSON records. The crash test kills it
with SIGKILL at each step of the commit protocol in turn, through the tests' crash switch
(`tests.support.spark_crash`, a sink task subclass armed by `SPARK_SINK_CRASH_AT`): inside the Spark
job, after staging, after a manifest, during the moves, and after publication but before the Kafka
offset commit. After each kill the published files hold no offset twice (and a kill inside the job
leaves the Parquet hand-off file it was reading, which the restarted task deletes); a restart without
the hook then commits everything produced so far, and pyarrow reads every committed file: each (topic,
partition, offset) and each sequence number is there exactly once, with no gaps. The rounds share one
topic and output (each adds records, so the next kill meets a state that earlier kills and recoveries
left). The rebalance test runs the same connector in two workers, one consumer group, and kills one of
them mid-stream while records keep arriving; the same check follows.

Each worker starts its own SparkSession (a JVM, local[1], C1 compiler only); the file takes about
2 minutes on an otherwise idle 2-core machine, several times that under heavy load.
"""

from __future__ import annotations

import functools
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_sink.faults import CommitStep
from tests.support.spark_crash import CRASH_AT_ENV, CRASHING_SINK
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    SequenceProducer,
    SinkWorker,
    all_committed,
    assert_exactly_once,
    assert_no_duplicates_and_a_prefix,
    logged,
    newest_manifests,
    owns_every_partition,
    sink_file,
    wait_for,
    worker_file,
)

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

# Where the crash test kills the worker, in the order the protocol reaches them. FILE_MOVED #1 is after the
# first file of an epoch moved into place (the others not yet); PRE_COMMIT is after publication, before the
# runtime commits the offsets to Kafka. PUBLISHED and STAGING_DELETED lie between those two; the Spark tier
# (tests/spark/test_spark_sink_recovery.py) covers them with failures injected into a task.
CRASH_STEPS = (
    CommitStep.SPARK_JOB,
    CommitStep.STAGED,
    CommitStep.MANIFEST_CREATED,
    CommitStep.FILE_MOVED,
    CommitStep.PRE_COMMIT,
)


def handoff_files(temp: Path) -> list[Path]:
    """The Parquet hand-off files in the local hand-off areas of workers whose TMPDIR is `temp`."""
    return sorted(temp.glob("kconnect-spark-handoff-*/*/*.parquet"))


@pytest.mark.slow
@pytest.mark.timeout(600)  # ten Spark driver JVMs: about 3 minutes alone, longer beside the other half of the suite
def test_kill_9_at_each_commit_step_then_restart_loses_and_duplicates_nothing(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path, sink_workers: list[SinkWorker]
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    root = tmp_path / "out"
    temp = tmp_path / "tmp"  # the workers' TMPDIR, where local[1] puts the Parquet hand-off files
    temp.mkdir()
    producer = SequenceProducer(kafka_bootstrap, topic)
    worker_props = worker_file(tmp_path, kafka_bootstrap, "worker")
    # Static membership: a restarted worker takes the killed one's place at once, without a session timeout.
    # Flushes of 100 records are below what `auto` hands over as a file: ask for the file, which kills must not
    # disturb either (bigger flushes take that path by default).
    extra = {
        "consumer.override.group.instance.id": "crash",
        "batch.handoff": "parquet",
        "connector.class": CRASHING_SINK,
    }
    sink_props = sink_file(tmp_path, "spark-crash", topic, root, **extra)
    producer.send(2 * FLUSH_SIZE * PARTITIONS)

    for round_number, step in enumerate(CRASH_STEPS):
        producer.send(FLUSH_SIZE * PARTITIONS)  # work for this round: its first epoch reaches `step`
        before = newest_manifests(root, topic)
        crashed = SinkWorker(
            worker_props,
            sink_props,
            tmp_path / f"{round_number}-{step.value}.log",
            {CRASH_AT_ENV: step.name, "TMPDIR": str(temp)},
        )
        sink_workers.append(crashed)
        code = crashed.exit_code(120)
        log = crashed.log()
        assert code == -signal.SIGKILL, f"killed at {step.name}, exit code {code}:\n{crashed.log_tail()}"
        assert f"{CRASH_AT_ENV}={step.name}: killing this process" in log, crashed.log_tail()
        if step is CommitStep.SPARK_JOB:
            assert "inside the running Spark job" in log, crashed.log_tail()
            assert handoff_files(temp), "the job read a hand-off file, which the kill left behind"
        if step is CommitStep.PRE_COMMIT:
            assert newest_manifests(root, topic) != before, "the killed worker had published something new"
        assert_no_duplicates_and_a_prefix(root, topic)

        restarted = SinkWorker(
            worker_props, sink_props, tmp_path / f"{round_number}-{step.value}-restart.log", {"TMPDIR": str(temp)}
        )
        sink_workers.append(restarted)
        wait_for(functools.partial(logged, restarted, "spark-crash-0: assigned"), 120, "the recovery", restarted)
        wait_for(lambda: all_committed(root, topic, producer.per_partition()), 120, "every record committed", restarted)
        assert_exactly_once(root, topic, producer)
        assert handoff_files(temp) == [], "the restart deleted the dead worker's hand-off files, each job its own"
        assert restarted.terminate() == 0, restarted.log_tail()


@pytest.mark.parametrize("isolation", ["thread", "process"])
@pytest.mark.slow
def test_worker_killed_during_a_rebalance_between_two_workers_loses_and_duplicates_nothing(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    sink_workers: list[SinkWorker],
    isolation: str,
) -> None:
    # In process mode the task (and its SparkSession) runs in a task process that outlives the killed worker
    # for a moment: it notices the worker is gone and stops, and must not publish over its successor.
    topic = topic_factory(partitions=PARTITIONS)
    root = tmp_path / "out"
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(FLUSH_SIZE * PARTITIONS)
    # The same connector name in both workers: one consumer group, connect-spark-shared, splits the partitions.
    first = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "first", task_isolation=isolation),
        sink_file(tmp_path, "spark-shared", topic, root),
        tmp_path / "first.log",
    )
    sink_workers.append(first)
    wait_for(lambda: len(newest_manifests(root, topic)) == PARTITIONS, 120, "the first worker's commits", first)

    stop_producing = threading.Event()

    def keep_producing() -> None:  # records keep arriving through both rebalances
        while not stop_producing.is_set():
            producer.send(PARTITIONS * 10)
            time.sleep(0.1)

    streaming = threading.Thread(target=keep_producing, daemon=True)
    streaming.start()
    try:
        second = SinkWorker(
            worker_file(tmp_path, kafka_bootstrap, "second", task_isolation=isolation),
            sink_file(tmp_path, "spark-shared", topic, root),
            tmp_path / "second.log",
        )
        sink_workers.append(second)

        def both_commit() -> bool:
            writers = {m["writer"] for m in newest_manifests(root, topic).values()}
            return {first.writer_id(), second.writer_id()} <= writers

        wait_for(both_commit, 120, "commits from both workers after the rebalance", second)
        assert first.process.poll() is None, first.log_tail()
        first.kill()  # mid-stream: its partitions move to the second worker after the session timeout
        wait_for(lambda: owns_every_partition(second), 60, "the second worker to take every partition", second)
    finally:
        stop_producing.set()
        streaming.join(30)
    # Top up to whole files: without a time-based rotation the sink commits only full flush.size files.
    producer.send(-producer.per_partition()[0] % FLUSH_SIZE * PARTITIONS)

    wait_for(lambda: all_committed(root, topic, producer.per_partition()), 120, "every record committed", second)
    assert_exactly_once(root, topic, producer)
