"""A cluster of distributed workers of one system: started together, killed, stopped (SIGTERM) and restarted one at
a time, and joined by members added later.

Every member keeps one REST port for its whole life, so a restarted member comes back with the same
worker id (`127.0.0.1:<port>`), as a restarted container would, and statuses are matched to members
by that port. All members share the keys of `distributed_properties` plus the variant's own
(`scheduled.rebalance.max.delay.ms` for Java, say). Processes are spawned on the caller's thread
through the run's ProcessSet, so they end with the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.broker import free_port
from bench.procs import ManagedProcess, ProcessSet
from bench.rest import ConnectRest
from bench.systems.base import WorkerMode, WorkerSystem, distributed_properties, spawn_worker, wait_ready


@dataclass
class ClusterMember:
    name: str
    port: int
    workdir: Path
    rest: ConnectRest
    process: ManagedProcess | None = None

    @property
    def worker_id(self) -> str:
        return f"127.0.0.1:{self.port}"

    def is_worker(self, worker_id: str) -> bool:
        """True when a status's `worker_id` names this member (any host spelling, same port)."""
        return worker_id.rsplit(":", 1)[-1] == str(self.port)

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()


@dataclass(frozen=True)
class Placement:
    """Where one connector instance or task runs, as a status response says."""

    connector: str
    task: int | None  # None for the connector instance itself
    state: str
    worker_id: str


def placements(status: Mapping[str, Any]) -> list[Placement]:
    """The connector instance and every task of one `GET /connectors/{c}/status` body."""
    name = str(status["name"])
    found = [Placement(name, None, str(status["connector"]["state"]), str(status["connector"]["worker_id"]))]
    found += [
        Placement(name, int(task["id"]), str(task["state"]), str(task["worker_id"])) for task in status.get("tasks", [])
    ]
    return found


@dataclass
class WorkerCluster:
    system: WorkerSystem
    processes: ProcessSet
    workdir: Path
    group: str
    bootstrap_servers: str
    replication: int
    props: Mapping[str, str]
    members: list[ClusterMember] = field(default_factory=list)

    @classmethod
    def create(
        cls,
        system: WorkerSystem,
        processes: ProcessSet,
        bootstrap_servers: str,
        workdir: Path,
        *,
        size: int,
        replication: int,
        extra_properties: Mapping[str, str] | None = None,
    ) -> WorkerCluster:
        """Members with ports and directories, not started yet; the group is named after `workdir`."""
        group = f"bench-{workdir.name}"
        cluster = cls(system, processes, workdir, group, bootstrap_servers, replication, dict(extra_properties or {}))
        taken: set[int] = set()
        for index in range(size):
            port = free_port(taken)
            taken.add(port)
            member_dir = workdir / f"worker-{index + 1}"
            rest = ConnectRest(f"http://127.0.0.1:{port}", timeout=10.0)
            cluster.members.append(ClusterMember(f"{system.key}-{index + 1}", port, member_dir, rest))
        return cluster

    def member_properties(self, member: ClusterMember) -> dict[str, str]:
        base = distributed_properties(self.bootstrap_servers, member.port, self.group, self.replication)
        return {**base, **self.props}

    def _spawn(self, member: ClusterMember) -> ManagedProcess:
        member.process = spawn_worker(
            self.system,
            self.processes,
            self.member_properties(member),
            member.workdir,
            WorkerMode.DISTRIBUTED,
            name=member.name,
        )
        return member.process

    def start(self, timeout: float = 180.0) -> float:
        """Start every member at once; seconds until the last one is healthy."""
        started = time.monotonic()
        for member in self.members:
            self._spawn(member)
        for member in self.members:
            assert member.process is not None
            wait_ready(self.system, self.processes, member.process, member.rest, WorkerMode.DISTRIBUTED, timeout)
        return time.monotonic() - started

    def kill(self, member: ClusterMember) -> float:
        """kill -9 of `member`; returns the monotonic time just before the signal."""
        if member.process is None:
            raise RuntimeError(f"{member.name} is not running")
        killed_at = time.monotonic()
        self.processes.kill(member.process)
        member.process = None  # down on purpose: not a worker that exited on its own
        return killed_at

    def restart(self, member: ClusterMember, timeout: float = 180.0) -> float:
        """Start `member` again on its port; seconds until it is healthy (has joined the group)."""
        process = self._spawn(member)
        return wait_ready(self.system, self.processes, process, member.rest, WorkerMode.DISTRIBUTED, timeout)

    def add_member(self) -> ClusterMember:
        """A new member on a port of its own, not started yet: a worker that joins the running cluster later."""
        index = len(self.members) + 1
        port = free_port({member.port for member in self.members})
        rest = ConnectRest(f"http://127.0.0.1:{port}", timeout=10.0)
        member = ClusterMember(f"{self.system.key}-{index}", port, self.workdir / f"worker-{index}", rest)
        self.members.append(member)
        return member

    def launch(self, member: ClusterMember) -> ManagedProcess:
        """Start `member` without waiting for it; its process's `started_at` is the moment of the spawn."""
        if member.process is not None:
            raise RuntimeError(f"{member.name} is already running")
        return self._spawn(member)

    def wait_healthy(self, member: ClusterMember, timeout: float = 180.0) -> float:
        """Seconds from `member`'s spawn until it is healthy (has joined the group); raises if it never is."""
        if member.process is None:
            raise RuntimeError(f"{member.name} is not running")
        return wait_ready(self.system, self.processes, member.process, member.rest, WorkerMode.DISTRIBUTED, timeout)

    def terminate(self, member: ClusterMember, timeout: float = 60.0) -> float:
        """SIGTERM of `member` (a graceful leave: it hands its work over) and wait until it exited, SIGKILL after
        `timeout`; returns the monotonic time just before the signal."""
        signalled_at = self.signal_term(member)
        self.reap(member, timeout)
        return signalled_at

    @staticmethod
    def _signal(member: ClusterMember, send: Callable[[ManagedProcess], None]) -> float:
        """`send` a signal to `member`'s process; returns the monotonic time just before it."""
        if member.process is None:
            raise RuntimeError(f"{member.name} is not running")
        signalled_at = time.monotonic()
        send(member.process)
        return signalled_at

    def signal_term(self, member: ClusterMember) -> float:
        """SIGTERM of `member` without waiting for it to exit (`reap` does)."""
        return self._signal(member, ManagedProcess.terminate)

    def reap(self, member: ClusterMember, timeout: float = 60.0) -> None:
        """Wait for a signalled `member` to exit (SIGKILL after `timeout`); it is then down on purpose."""
        if member.process is not None:
            self.processes.stop(member.process, timeout)
            member.process = None

    def pause(self, member: ClusterMember) -> float:
        """SIGSTOP of `member` (`resume` or `kill` ends it)."""
        return self._signal(member, ManagedProcess.pause)

    def resume(self, member: ClusterMember) -> None:
        if member.process is not None:
            member.process.resume()

    def leader(self) -> ClusterMember | None:
        """The member the live members last named their group's leader (most votes), if the system names one."""
        votes: dict[int, int] = {}
        for member in self.alive():
            port = self.system.group_leader_port(member.workdir)
            if port is not None:
                votes[port] = votes.get(port, 0) + 1
        if not votes:
            return None
        port = max(votes, key=lambda candidate: votes[candidate])
        return next((member for member in self.members if member.port == port), None)

    def alive(self) -> list[ClusterMember]:
        return [member for member in self.members if member.alive()]

    @property
    def rest(self) -> ConnectRest:
        """The REST API of the first live member: any worker answers for the whole cluster."""
        alive = self.alive()
        return (alive or self.members)[0].rest

    def ensure_alive(self) -> None:
        """Raise if a member that should run has exited on its own."""
        for member in self.members:
            if member.process is not None and not member.process.alive():
                raise RuntimeError(
                    f"{member.name} exited with {member.process.returncode}:\n{member.process.log_tail()}"
                )

    def internal_topics_prefix(self) -> str:
        return f"{self.group}-"

    def stop(self) -> None:
        """Stop every member at once (one after the other, each would trigger a rebalance of the rest)."""
        for member in self.members:
            member.rest.close()
        self.processes.stop_together([member.process for member in self.members if member.process is not None])
