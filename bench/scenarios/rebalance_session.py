"""One cluster's run of the rebalance benchmark: its workload, and the join, leave and restart it measures.

`Session.open` creates 100 output topics, starts the `ClusterWatch` on them and on the cluster's status (and
kconnect's slots) topic, creates 100 connectors of 4 rate-limited source tasks through one worker, and waits
until the 3 workers run them balanced. Then `join`, `leave` and `restart` each change the membership once and
poll `GET /connectors?expand=status` on a worker the change does not touch until the cluster is balanced
(every connector and task RUNNING, every live worker within ±1 of the even share of tasks) and stays so for
STABLE_S. Everything runs on the caller's thread, except the watch's consumer and, during a join, a thread
that polls the new worker's `GET /health`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.catalog import KCONNECT
from bench.harness import RunContext
from bench.scenarios.datagen import BYTE_ARRAY_CONVERTER
from bench.scenarios.rebalance_analysis import (
    WINDOW_S,
    Churn,
    Ratio,
    Snapshot,
    TaskKey,
    churn,
    first_running_after,
    is_balanced,
    last_generation,
    moved,
    per_second,
    rebalance_starts,
    throughput_ratio,
    unaffected,
    window_index,
)
from bench.scenarios.rebalance_watch import ClusterWatch
from bench.settings import DATAGEN, VERIFIABLE_SOURCE
from bench.systems.cluster import ClusterMember, WorkerCluster

log = logging.getLogger(__name__)

CONNECTORS = 100
TASKS_PER_CONNECTOR = 4
TASKS = CONNECTORS * TASKS_PER_CONNECTOR
TASK_RATE = 10  # records per second per task
PAYLOAD_BYTES = 16
STABLE_S = 5.0
POLL_INTERVAL_S = 0.25
SETUP_BOUND_S = 600.0
CHANGE_BOUND_S = 180.0
STOP_TIMEOUT_S = 60.0


class RebalanceError(RuntimeError):
    pass


def connector_config(system_key: str, topic: str) -> dict[str, str]:
    """kconnect: its datagen, `records.per.second` split over the tasks; Java: Kafka's VerifiableSource,
    whose `throughput` is per task. Both key each record by its task number."""
    if system_key == KCONNECT:
        return {
            "connector.class": DATAGEN,
            "tasks.max": str(TASKS_PER_CONNECTOR),
            "kafka.topic": topic,
            "quickstart": "payload",
            "payload.size": str(PAYLOAD_BYTES),
            "records.per.second": str(TASK_RATE * TASKS_PER_CONNECTOR),
            "value.converter": BYTE_ARRAY_CONVERTER,
        }
    return {
        "connector.class": VERIFIABLE_SOURCE,
        "tasks.max": str(TASKS_PER_CONNECTOR),
        "topic": topic,
        "throughput": str(TASK_RATE),
    }


def ports(members: Collection[ClusterMember]) -> frozenset[int]:
    return frozenset(member.port for member in members)


class StatusPoller:
    """`GET /connectors?expand=status`: the whole cluster's statuses in one request."""

    def __init__(self) -> None:
        self._client = httpx.Client(timeout=10.0)
        self.rounds_ms: list[float] = []

    def close(self) -> None:
        self._client.close()

    def poll(self, member: ClusterMember) -> Snapshot | None:
        started = time.monotonic()
        try:
            response = self._client.get(f"http://127.0.0.1:{member.port}/connectors", params={"expand": "status"})
        except httpx.HTTPError:
            return None
        finally:
            self.rounds_ms.append((time.monotonic() - started) * 1000)
        if response.status_code != 200:
            return None
        return Snapshot.from_expanded(response.json(), time.monotonic())


class HealthWatch:
    """Polls a starting worker's `GET /health` on a thread of its own; `ready_at` is when it first answered 200."""

    def __init__(self, member: ClusterMember, bound: float) -> None:
        self.ready_at: float | None = None
        self._member = member
        self._deadline = time.monotonic() + bound
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rebalance-health", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set() and time.monotonic() < self._deadline:
            if self._member.rest.healthy():
                self.ready_at = time.monotonic()
                return
            self._stopping.wait(0.02)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)


@dataclass(frozen=True)
class Clock:
    """Monotonic times of the harness as wall-clock times, which record timestamps and the broker's log use."""

    wall_at_start: float
    mono_at_start: float

    @classmethod
    def now(cls) -> Clock:
        return cls(time.time(), time.monotonic())

    def wall(self, at: float) -> float:
        return self.wall_at_start + (at - self.mono_at_start)


@dataclass
class Observation:
    snapshots: list[Snapshot]
    balanced: Snapshot | None  # the first snapshot of the balanced run that lasted STABLE_S; None: bound passed

    @property
    def last_at(self) -> float:
        return self.snapshots[-1].at if self.snapshots else time.monotonic()


class BrokerLog:
    """The broker's server.log files (they do not roll within a run)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._paths = list(paths)

    def text(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in self._paths)


@dataclass(frozen=True)
class Join:
    """One join of a 4th worker; times are None when the cluster was not balanced within CHANGE_BOUND_S."""

    from_start_s: float | None
    from_rest_s: float | None
    rest_ready_s: float | None  # the new worker's REST answered 200 on /health, seconds after the spawn
    unaffected: int
    ratio: Ratio
    ratio_from_start: Ratio
    moved: int
    rounds: int
    placements: int
    series: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Restart:
    """One restart (SIGTERM, then the same worker started again on its port); None: not settled within `bound`."""

    bound: float
    settle_s: float | None
    restarted_tasks: int  # tasks the restarted worker ran before
    churn: Churn
    rounds: int
    placements: int
    down_s: list[float | None]  # per task of the restarted worker: SIGTERM until RUNNING again anywhere
    leader: bool | None


@dataclass
class Session:
    ctx: RunContext
    cluster: WorkerCluster
    watch: ClusterWatch
    topics: list[str]
    connectors: list[str]
    broker_log: BrokerLog
    poller: StatusPoller = field(default_factory=StatusPoller)
    setup_s: float = 0.0
    setup_rounds: int = 0
    steady_s: float = 10.0

    @classmethod
    def open(cls, ctx: RunContext, cluster: WorkerCluster) -> Session:
        topics = {ctx.unique("rebalance"): f"rebalance-{index}" for index in range(CONNECTORS)}
        for topic in topics:
            ctx.admin.create_topic(topic)
        kconnect = cluster.system.key == KCONNECT
        slots = f"{cluster.group}-slots" if kconnect else None
        watch = ClusterWatch(ctx.bootstrap_servers, topics, f"{cluster.group}-status", slots)
        # The run's broker lives in `<workdir>/kafka` (bench/cli.py), one directory per node.
        broker_log = BrokerLog(sorted(ctx.workdir.glob("kafka/node-*/logs/server.log")))
        session = cls(
            ctx,
            cluster,
            watch,
            list(topics),
            list(topics.values()),
            broker_log,
            steady_s=ctx.sizes.rebalance_steady_seconds,
        )
        try:
            watch.start()
            started = time.monotonic()
            for topic, name in topics.items():
                cluster.rest.create(name, connector_config(cluster.system.key, topic))
            observation = session.observe(ports(cluster.alive()), started, SETUP_BOUND_S)
            if observation.balanced is None:
                raise RebalanceError(f"{TASKS} tasks not RUNNING and balanced within {SETUP_BOUND_S:.0f} s")
            session.setup_s = observation.balanced.at - started
            session.setup_rounds = last_generation(broker_log.text(), cluster.group)
            log.info("%s: %d tasks balanced after %.1f s", cluster.system.label, TASKS, session.setup_s)
        except BaseException:
            session.close()
            raise
        return session

    def close(self) -> None:
        self.poller.close()
        self.watch.stop()
        self.ctx.admin.delete_topics(self.topics)

    # -- observing ---------------------------------------------------------------------------------

    def _asked(self, avoid: ClusterMember | None) -> ClusterMember:
        """A live worker the change does not touch, to read statuses from."""
        for member in self.cluster.alive():
            if member is not avoid:
                return member
        raise RebalanceError("no live worker to ask for statuses")

    def observe(
        self, live: Collection[int], started: float, bound: float, avoid: ClusterMember | None = None
    ) -> Observation:
        """Poll statuses until balanced over `live` (ports) for STABLE_S, or until `bound` after `started`."""
        snapshots: list[Snapshot] = []
        candidate: Snapshot | None = None
        while True:
            self.cluster.ensure_alive()
            self.watch.check()
            snapshot = self.poller.poll(self._asked(avoid))
            if snapshot is not None:
                snapshots.append(snapshot)
                if is_balanced(snapshot, live, CONNECTORS, TASKS):
                    candidate = candidate or snapshot
                    if snapshot.at - candidate.at >= STABLE_S:
                        return Observation(snapshots, candidate)
                else:
                    candidate = None
            if time.monotonic() - started > bound:
                return Observation(snapshots, None)
            time.sleep(POLL_INTERVAL_S)

    def balanced_now(self, avoid: ClusterMember | None = None) -> Snapshot:
        """A fresh balanced snapshot of the live workers (waits if the cluster is still settling)."""
        observation = self.observe(ports(self.cluster.alive()), time.monotonic(), CHANGE_BOUND_S, avoid)
        if observation.balanced is None:
            raise RebalanceError(f"the cluster did not settle within {CHANGE_BOUND_S:.0f} s")
        return observation.snapshots[-1]

    def hold_steady(self) -> Snapshot:
        """Let the cluster run unchanged for the steady window, then a balanced snapshot of it."""
        before = self.balanced_now()
        time.sleep(self.steady_s)  # the steady window the throughput is compared with: not a synchronisation
        live = ports(self.cluster.alive())
        for _ in range(3):
            after = self.poller.poll(self._asked(None))
            if after is not None:
                if not is_balanced(after, live, CONNECTORS, TASKS) or after.owners() != before.owners():
                    raise RebalanceError("tasks moved in the steady window before a measured change")
                return after
        raise RebalanceError("no status answer after the steady window")

    # -- the changes ---------------------------------------------------------------------------------

    def join(self, newcomer: ClusterMember, with_series: bool) -> Join:
        before = self.hold_steady()
        generation = last_generation(self.broker_log.text(), self.cluster.group)
        clock = Clock.now()
        self.cluster.launch(newcomer)
        health = HealthWatch(newcomer, CHANGE_BOUND_S)
        try:
            observation = self.observe(ports(self.cluster.alive()), clock.mono_at_start, CHANGE_BOUND_S, newcomer)
        finally:
            health.stop()
        balanced_at = None if observation.balanced is None else observation.balanced.at
        ready_at = health.ready_at
        log_text = self.broker_log.text()
        # The rebalance begins when the new worker joins the group (the broker logs it), or at the latest when
        # its REST answers; the process start-up before that is in the from-start ratio only.
        group_joined = next(
            (at for at in rebalance_starts(log_text, self.cluster.group) if at >= clock.wall_at_start), None
        )
        starts = [at for at in (group_joined, None if ready_at is None else clock.wall(ready_at)) if at is not None]
        rebalance_from = min(starts, default=clock.wall_at_start)
        end_wall = clock.wall(observation.last_at)
        self.watch.wait_read(end_wall)
        kept = unaffected([before, *observation.snapshots])
        first = window_index(clock.wall_at_start)
        steady = self.watch.window_totals(kept, first - round(self.steady_s / WINDOW_S), first - 1)
        last = window_index(clock.wall(observation.last_at if balanced_at is None else balanced_at))
        after = observation.balanced or observation.snapshots[-1]
        spawned_ms, end_ms = int(clock.wall_at_start * 1000), int(end_wall * 1000)
        marks = {
            "joined group": group_joined,
            "REST ready": None if ready_at is None else clock.wall(ready_at),
            "balanced": None if balanced_at is None else clock.wall(balanced_at),
        }
        join = Join(
            from_start_s=None if balanced_at is None else balanced_at - clock.mono_at_start,
            from_rest_s=None if balanced_at is None or ready_at is None else balanced_at - ready_at,
            rest_ready_s=None if ready_at is None else ready_at - clock.mono_at_start,
            unaffected=len(kept),
            ratio=throughput_ratio(steady, self.watch.window_totals(kept, window_index(rebalance_from), last)),
            ratio_from_start=throughput_ratio(steady, self.watch.window_totals(kept, first, last)),
            moved=len(moved(before, after)),
            rounds=last_generation(log_text, self.cluster.group) - generation,
            placements=self.watch.slot_records(b"placement", spawned_ms, end_ms),
            series=self._series(kept, clock, end_wall, marks) if with_series else {},
        )
        log.info("%s: join %s", self.cluster.system.label, join_summary(join))
        return join

    def _series(
        self, kept: set[TaskKey], clock: Clock, end_wall: float, marks: Mapping[str, float | None]
    ) -> dict[str, list[float]]:
        """Records/s per task in each complete 0.5 s window around a join, for the unaffected tasks and for the
        others, and `marks` (wall-clock times); times in seconds from the spawn of the new worker."""
        first = window_index(clock.wall_at_start) - round(self.steady_s / WINDOW_S)
        last = window_index(end_wall) - 1
        others = {(name, task) for name in self.connectors for task in range(TASKS_PER_CONNECTOR)} - kept
        series = {
            "series_t_s": [w * WINDOW_S + WINDOW_S / 2 - clock.wall_at_start for w in range(first, last + 1)],
            "series_line_unaffected_tasks": per_task(self.watch.window_totals(kept, first, last), len(kept)),
            "series_line_other_tasks": per_task(self.watch.window_totals(others, first, last), len(others)),
        }
        for name, at in marks.items():
            if at is not None:
                series["series_mark_" + name.replace(" ", "_")] = [at - clock.wall_at_start]
        return series

    def leave(self, member: ClusterMember) -> float | None:
        """SIGTERM `member` and wait until the others are balanced; seconds from the signal (None: not in time)."""
        signalled = self.cluster.terminate(member, STOP_TIMEOUT_S)
        observation = self.observe(ports(self.cluster.alive()), signalled, CHANGE_BOUND_S)
        took = None if observation.balanced is None else observation.balanced.at - signalled
        log.info("%s: leave balanced after %s s", self.cluster.system.label, _seconds(took))
        return took

    def restart(self, victim: ClusterMember, bound: float = CHANGE_BOUND_S) -> Restart:
        leader = self.cluster.leader()
        before = self.hold_steady()
        owners = before.owners()
        generation = last_generation(self.broker_log.text(), self.cluster.group)
        clock = Clock.now()
        signalled = self.cluster.terminate(victim, STOP_TIMEOUT_S)
        self.cluster.launch(victim)
        observation = self.observe(ports(self.cluster.members), signalled, bound, avoid=victim)
        end_wall = clock.wall(observation.last_at)
        self.watch.wait_read(end_wall)
        since_ms, until_ms = int(clock.wall(signalled) * 1000), int(end_wall * 1000)
        events = self.watch.status_events(since_ms, until_ms)
        own = {task for task, port in owners.items() if port == victim.port}
        back = first_running_after(events, own, since_ms)
        restart = Restart(
            bound=bound,
            settle_s=None if observation.balanced is None else observation.balanced.at - signalled,
            restarted_tasks=len(own),
            churn=churn(events, owners, victim.port),
            rounds=last_generation(self.broker_log.text(), self.cluster.group) - generation,
            placements=self.watch.slot_records(b"placement", since_ms, until_ms),
            down_s=[(back[task] - since_ms) / 1000 if task in back else None for task in sorted(own)],
            leader=None if leader is None else leader is victim,
        )
        log.info(
            "%s: restart of %s settled after %s s: %d moves, %d tasks of other workers touched, %d rounds",
            self.cluster.system.label,
            victim.name,
            _seconds(restart.settle_s),
            restart.churn.moves,
            len(restart.churn.collateral),
            restart.rounds,
        )
        return restart


def per_task(totals: Sequence[int], tasks: int) -> list[float]:
    return [rate / tasks for rate in per_second(totals)] if tasks else [0.0 for _ in totals]


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f}"


def join_summary(join: Join) -> str:
    return (
        f"balanced {_seconds(join.from_start_s)} s after the spawn ({_seconds(join.from_rest_s)} s after REST ready "
        f"at {_seconds(join.rest_ready_s)} s); {join.moved} tasks moved in {join.rounds} group rounds; "
        f"{join.unaffected} unaffected at {join.ratio.mean:.1%} (worst window {join.ratio.worst:.1%})"
    )
