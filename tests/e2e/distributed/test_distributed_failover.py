"""Three `kconnect worker` processes running 2 connectors x 6 tasks, one of them killed, stopped or frozen.

Driven only through REST and signals, with a session timeout of 3 s (heartbeat 0.5 s), and once with
Kafka Connect's defaults (10 s, 3 s). A killed worker's process is seen gone by its peers at once, so its
work moves within 3 s whatever the session timeout; a frozen one is left to the session timeout.
Statuses are read from a surviving worker; the task instances' run files (test_distributed_plugins) show
when each instance ran in which process, so that "no task ran on two workers at once" is checked against
what the processes did, not against statuses.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from collections import Counter
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from tests.support.distributed_workers import (
    HEARTBEAT_MS,
    SESSION_MS,
    Cluster,
    WorkerProcess,
    datagen_config,
    make_topic,
    overlaps,
    per_worker,
    sink_config,
    topic_keys,
)
from tests.support.machine_faults import busy_cpus, dropped_port
from tests.support.processes import DeathWatch, listening_ports, task_processes_of
from tests.support.recording_plugins import Run, read_runs
from tests.support.waiting import holds_for, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timed]

S, H = SESSION_MS / 1000, HEARTBEAT_MS / 1000
CONNECTORS = ["src", "sink"]
TASKS = 12


def running_balanced(cluster: Cluster) -> tuple[Cluster, dict[str, str], str]:
    """Three workers running 2 connectors x 6 tasks, 4 tasks each; also returns the source's topic."""
    topic = make_topic(cluster.bootstrap, 6)
    cluster.create("src", datagen_config(cluster, topic, rate=120))
    cluster.create("sink", sink_config(cluster, topic), via=cluster.workers[1])
    owners = wait_until(
        lambda: cluster.balanced_on(CONNECTORS, TASKS, cluster.workers), 60, "12 tasks RUNNING, 4 on each worker"
    )
    assert sorted(per_worker(owners).values()) == [4, 4, 4]
    return cluster, owners, topic


def victim_and_survivors(cluster: Cluster) -> tuple[WorkerProcess, list[WorkerProcess]]:
    victim = cluster.workers[1]
    return victim, [w for w in cluster.workers if w is not victim]


def all_runs_stopped(cluster: Cluster, pids: set[int]) -> bool:
    """The processes `pids` ran task instances, and every one of them has stopped."""
    runs = [r for r in read_runs(cluster.runs) if r.pid in pids]
    return bool(runs) and all(r.stop is not None for r in runs)


def live_at(run: Run, moment: float) -> bool:
    """`run` had started and not yet stopped at `moment` (time.time())."""
    return run.start < moment and (run.stop is None or run.stop > moment)


def time_until_all_run_on(cluster: Cluster, survivors: list[WorkerProcess], since: float, timeout: float) -> float:
    wait_until(
        lambda: cluster.running_on(CONNECTORS, TASKS, survivors, via=survivors[0]),
        timeout,
        "every task RUNNING on a survivor",
        interval=0.02,
    )
    return time.monotonic() - since


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_a_killed_workers_tasks_run_on_the_survivors_within_three_seconds(
    clusters: Callable[..., Cluster], isolation: str
) -> None:
    # With task processes, the killed worker's task processes must end before the survivors start the tasks:
    # they end at once, with no stop line, so the moment each died is watched.
    cluster, _, _ = running_balanced(clusters(3, task_isolation=isolation))
    victim, survivors = victim_and_survivors(cluster)
    deaths = DeathWatch(task_processes_of(victim.pid))

    started = time.monotonic()
    killed_at = victim.signal(signal.SIGKILL)
    took = time_until_all_run_on(cluster, survivors, started, 30)
    print("measured failover_s:", round(took, 3))

    assert took <= 3.0, f"failover took {took:.2f} s\n{cluster.logs()}"
    deaths.stop()
    assert overlaps(read_runs(cluster.runs), {victim.pid: killed_at, **deaths.ended()}) == []
    owners = wait_until(
        lambda: cluster.balanced_on(CONNECTORS, TASKS, survivors, via=survivors[0]), 30, "6 tasks on each survivor"
    )
    balanced = time.monotonic() - started
    print("measured failover_balanced_s:", round(balanced, 3))
    assert sorted(per_worker(owners).values()) == [6, 6]
    # Balanced ±1 within the same 3 s: the group deals the dead worker's slots out to the survivors.
    assert balanced <= 3.0, f"balanced after {balanced:.2f} s\n{cluster.logs()}"


def test_a_stopped_worker_hands_its_tasks_over_within_five_seconds(clusters: Callable[..., Cluster]) -> None:
    cluster, _, _ = running_balanced(clusters(3))
    victim, survivors = victim_and_survivors(cluster)

    started = time.monotonic()
    victim.signal(signal.SIGTERM)
    took = time_until_all_run_on(cluster, survivors, started, 30)
    print("measured handover_s:", round(took, 3))

    assert took <= 5.0, f"handover took {took:.2f} s\n{cluster.logs()}"
    assert victim.wait_exit(30) == 0, victim.log_tail()
    runs = read_runs(cluster.runs)
    assert all(run.stop is not None for run in runs if run.pid == victim.pid), "a task was not stopped cleanly"
    assert overlaps(runs, {}) == []


def test_a_frozen_worker_stops_its_tasks_when_it_thaws_and_rejoins(clusters: Callable[..., Cluster]) -> None:
    # Exactly-once sources: the frozen worker's source tasks are fenced by their transactional ids.
    cluster, owners, topic = running_balanced(clusters(3, exactly_once_source_support="enabled"))
    victim, survivors = victim_and_survivors(cluster)
    frozen_tasks = {task for task, worker in owners.items() if worker == victim.worker_id}

    started = time.monotonic()
    frozen_at = victim.signal(signal.SIGSTOP)
    took = time_until_all_run_on(cluster, survivors, started, 30)
    print("measured frozen_failover_s:", round(took, 3))
    assert took <= S + H + 2, f"failover from a frozen worker took {took:.2f} s\n{cluster.logs()}"
    # Stay frozen well past the session timeout, so that the worker certainly finds itself evicted.
    wait_until(lambda: time.monotonic() - started > S + 2, 10, "the freeze to outlast the session timeout")
    thawed_at = victim.signal(signal.SIGCONT)

    wait_until(lambda: all_runs_stopped(cluster, {victim.pid}), 15, "the thawed worker to stop every task it ran")
    last_stop = max(r.stop or 0.0 for r in read_runs(cluster.runs) if r.pid == victim.pid)
    print("measured zombie_stop_s:", round(last_stop - thawed_at, 3))
    zombie_runs = [r for r in read_runs(cluster.runs) if r.pid == victim.pid and r.start < frozen_at]
    assert {r.task for r in zombie_runs if r.stop is not None and r.stop >= thawed_at} >= frozen_tasks
    # With effect: the thawed worker's sink tasks handed nothing more to the sink once it was evicted.
    late_puts = [(r.task, p - thawed_at) for r in zombie_runs for p in r.puts if p >= thawed_at]
    assert late_puts == [], f"the thawed worker's sink tasks still wrote: {late_puts}"

    def rejoined_owners() -> dict[str, str] | None:
        owners = cluster.balanced_on(CONNECTORS, TASKS, cluster.workers, via=survivors[0])
        return owners if owners is not None and victim.worker_id in owners.values() else None

    rejoined = wait_until(rejoined_owners, 30, "the thawed worker to rejoin and run its share again")
    assert sorted(per_worker(rejoined).values()) == [4, 4, 4]
    # With effect, sources: nothing the frozen worker's source tasks sent after their successors took over
    # was committed; every record a read_committed consumer sees was written exactly once.
    committed = Counter(topic_keys(cluster.bootstrap, topic, committed_only=True))
    assert committed and max(committed.values()) == 1, [k for k, n in committed.items() if n > 1][:10]


def test_a_frozen_workers_task_processes_stop_their_tasks_before_the_survivors_take_over(
    clusters: Callable[..., Cluster],
) -> None:
    # Task processes are not frozen with their worker: they stop their tasks when it falls silent.
    cluster, _, _ = running_balanced(clusters(3, task_isolation="process"))
    victim, survivors = victim_and_survivors(cluster)
    task_processes = task_processes_of(victim.pid)
    # Its 4 tasks share task.processes.max processes (by default one per core).
    assert len(task_processes) == min(4, os.cpu_count() or 1), task_processes

    started = time.monotonic()
    victim.signal(signal.SIGSTOP)
    try:
        time_until_all_run_on(cluster, survivors, started, 30)

        stopped = "the frozen worker's task processes to stop their tasks"
        wait_until(lambda: all_runs_stopped(cluster, task_processes), 10, stopped)
        assert overlaps(read_runs(cluster.runs), {}) == []
    finally:
        victim.signal(signal.SIGCONT)

    def rejoined_owners() -> dict[str, str] | None:
        owners = cluster.balanced_on(CONNECTORS, TASKS, cluster.workers, via=survivors[0])
        return owners if owners is not None and victim.worker_id in owners.values() else None

    try:
        rejoined = wait_until(rejoined_owners, 30, "the thawed worker to rejoin and run its share again")
    except AssertionError:
        print(victim.log_tail(150))
        print(cluster.status("src", via=survivors[0]), cluster.status("sink", via=survivors[0]))
        raise
    assert sorted(per_worker(rejoined).values()) == [4, 4, 4]


def test_failover_with_kafka_connects_default_session_timeout_takes_no_session_timeout(
    clusters: Callable[..., Cluster],
) -> None:
    """session.timeout.ms=10000 and heartbeat.interval.ms=3000 (Kafka Connect's defaults): the survivors see
    the killed process's liveness connection close and evict it from the group, so T <= 3 s, not S."""
    cluster, _, _ = running_balanced(clusters(3, session_timeout_ms="10000", heartbeat_interval_ms="3000"))
    victim, survivors = victim_and_survivors(cluster)

    started = time.monotonic()
    killed_at = victim.signal(signal.SIGKILL)
    took = time_until_all_run_on(cluster, survivors, started, 60)
    print("measured default_failover_s:", round(took, 3))

    assert took <= 3.0, f"failover took {took:.2f} s\n{cluster.logs()}"
    assert overlaps(read_runs(cluster.runs), {victim.pid: killed_at}) == []


DEFAULT_TIMEOUTS = {"session_timeout_ms": "10000", "heartbeat_interval_ms": "3000"}  # Kafka Connect's


def test_a_frozen_worker_s_tasks_run_elsewhere_within_six_seconds_with_kafka_connects_defaults(
    clusters: Callable[..., Cluster],
) -> None:
    """A hung process keeps its connections open: its peers stop hearing its liveness beats and evict it
    after liveness.timeout.ms (4 s), long before its 10 s session expires. When it thaws, its stall guard
    (2.5 s) has already made it drop its work: it hands its sinks nothing and rejoins."""
    cluster, _, _ = running_balanced(clusters(3, **DEFAULT_TIMEOUTS))
    victim, survivors = victim_and_survivors(cluster)

    started = time.monotonic()
    frozen_at = victim.signal(signal.SIGSTOP)
    took = time_until_all_run_on(cluster, survivors, started, 30)
    print("measured default_frozen_failover_s:", round(took, 3))
    assert took <= 6.0, f"failover from a frozen worker took {took:.2f} s\n{cluster.logs()}"
    thawed_at = victim.signal(signal.SIGCONT)

    wait_until(lambda: all_runs_stopped(cluster, {victim.pid}), 15, "the thawed worker to stop every task it ran")
    zombie_runs = [r for r in read_runs(cluster.runs) if r.pid == victim.pid and r.start < frozen_at]
    late_puts = [(r.task, p - thawed_at) for r in zombie_runs for p in r.puts if p >= thawed_at]
    assert late_puts == [], f"the thawed worker's sink tasks still wrote: {late_puts}"
    # So the runs it still had when it froze ended, in effect, then (it stops them only once thawed); one it
    # had stopped before keeps its own stop. No other two instances of a task overlapped.
    runs = [
        dataclasses.replace(r, stop=frozen_at) if r.pid == victim.pid and live_at(r, frozen_at) else r
        for r in read_runs(cluster.runs)
    ]
    assert overlaps(runs, {}) == []
    wait_until(
        lambda: cluster.balanced_on(CONNECTORS, TASKS, cluster.workers, via=survivors[0]),
        60,
        "the thawed worker to rejoin and run its share again",
    )


def test_a_worker_paused_for_a_second_and_a_half_keeps_every_task_with_kafka_connects_defaults(
    clusters: Callable[..., Cluster],
) -> None:
    cluster, owners, _ = running_balanced(clusters(3, **DEFAULT_TIMEOUTS))
    victim, survivors = victim_and_survivors(cluster)
    runs_before = {(r.task, r.pid, r.start) for r in read_runs(cluster.runs)}

    victim.signal(signal.SIGSTOP)
    paused = time.monotonic()
    wait_until(lambda: time.monotonic() - paused >= 1.5, 5, "a pause of 1.5 s")
    victim.signal(signal.SIGCONT)

    # Past the liveness timeout (4 s) and the stall guard (2.5 s), nothing stopped and nothing started.
    def nothing_moved() -> bool:
        runs = read_runs(cluster.runs)
        return all(r.stop is None for r in runs) and {(r.task, r.pid, r.start) for r in runs} == runs_before

    try:
        holds_for(nothing_moved, 6.0, "every task where it was, never restarted", interval=0.2)
    except AssertionError:
        print(cluster.logs())
        raise
    assert cluster.running_on(CONNECTORS, TASKS, cluster.workers, via=survivors[0]) == owners


def test_after_a_kill_records_reach_every_sink_partition_again_within_three_seconds(
    clusters: Callable[..., Cluster],
) -> None:
    """Kafka Connect's default timeouts; one marker record produced to each of the 6 partitions right after
    the kill. The killed worker's sink tasks restart on the survivors and evict their predecessors'
    consumers from the sink group, so the markers arrive without waiting for those consumers' sessions.
    The run files are read back, so the time includes up to one offset flush (250 ms here)."""
    cluster, _, topic = running_balanced(clusters(3, offset_flush_interval_ms="250", **DEFAULT_TIMEOUTS))
    victim, _survivors = victim_and_survivors(cluster)
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "linger.ms": 0})

    started = time.monotonic()
    victim.signal(signal.SIGKILL)
    markers = {f"marker-{partition}" for partition in range(6)}
    for partition in range(6):
        producer.produce(topic, key=f"marker-{partition}", value=b"{}", partition=partition)
    producer.flush(10)

    def delivered() -> set[str]:
        return markers & {key for run in read_runs(cluster.runs) for key in run.keys}

    wait_until(lambda: delivered() == markers, 30, "a marker from every partition in a sink's run file")
    took = time.monotonic() - started
    print("measured default_sink_data_s:", round(took, 3))
    assert took <= 3.0, f"the markers took {took:.2f} s\n{cluster.logs()}"


def task_runs(cluster: Cluster) -> set[tuple[str, int, float, float | None]]:
    """Every task instance that ran: task, process, start and stop (None while it runs)."""
    return {(r.task, r.pid, r.start, r.stop) for r in read_runs(cluster.runs)}


def test_a_worker_cut_off_from_its_peers_but_not_from_kafka_is_evicted_once_and_then_keeps_its_share(
    clusters: Callable[..., Cluster],
) -> None:
    """Kafka Connect's default timeouts. The firewall drops the cut worker's liveness port, so its peers stop
    hearing its beats (the connections stay open) while it still reaches Kafka and hears them. After
    liveness.timeout.ms (4 s) they evict it, once: it loses its work, rejoins and gets its share back, and is
    not chased again while the cut lasts, nor when it heals. No task instance ever runs in two processes."""
    cluster, _, _ = running_balanced(clusters(3, **DEFAULT_TIMEOUTS))
    victim, survivors = victim_and_survivors(cluster)
    (liveness,) = listening_ports(victim.pid) - {victim.port}
    before = {(r.task, r.start) for r in read_runs(cluster.runs) if r.pid == victim.pid}

    def rejoined_owners() -> dict[str, str] | None:
        owners = cluster.balanced_on(CONNECTORS, TASKS, cluster.workers, via=survivors[0])
        return owners if owners is not None and victim.worker_id in owners.values() else None

    with dropped_port(liveness):
        cut_at = time.time()

        def evicted() -> bool:
            runs = [r for r in read_runs(cluster.runs) if r.pid == victim.pid and (r.task, r.start) in before]
            return all(r.stop is not None for r in runs)

        wait_until(evicted, 20, "the cut worker to stop the tasks it ran once its peers evicted it")
        stopped = max(r.stop or 0.0 for r in read_runs(cluster.runs) if (r.task, r.start) in before)
        print("measured peer_cut_eviction_s:", round(stopped - cut_at, 3))
        wait_until(rejoined_owners, 60, "the cut worker to rejoin and run its share again")
        settled = task_runs(cluster)
        holds_for(lambda: task_runs(cluster) == settled, 10.0, "no task stopped or started while the cut lasts")
    holds_for(lambda: task_runs(cluster) == settled, 5.0, "no task stopped or started once the cut healed")
    assert overlaps(read_runs(cluster.runs), {}) == []
    assert rejoined_owners() is not None


def test_workers_on_a_machine_at_load_eight_keep_every_task(clusters: Callable[..., Cluster]) -> None:
    """Kafka Connect's default timeouts; 8 processes spinning on the 2 cores beside the three workers and the
    broker. Every thread of a worker still runs within milliseconds of wanting to, far inside the 4 s of
    silence a peer waits and the 2.5 s stall guard: nothing is taken for dead, nothing stops or moves."""
    cluster, owners, _ = running_balanced(clusters(3, **DEFAULT_TIMEOUTS))
    settled = task_runs(cluster)

    with busy_cpus(8):
        try:
            holds_for(lambda: task_runs(cluster) == settled, 20.0, "every task where it was under load 8")
        except AssertionError:
            print(cluster.logs())
            raise
    assert cluster.running_on(CONNECTORS, TASKS, cluster.workers, via=cluster.workers[0]) == owners
