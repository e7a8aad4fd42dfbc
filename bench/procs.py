"""Processes the harness starts: each in its own process group, logged to a file, and always ended.

`ProcessSet` is the owner: whatever it spawned is terminated (SIGTERM to the group, SIGKILL after a
grace period) when its `with` block ends, on success, error or Ctrl-C alike. For the deaths no
`finally` sees (SIGKILL, a crashed interpreter) it keeps a `bench.reaper` process informed of every
group it owns or watches (`watch_group`, for the broker's nodes), which ends them when the harness's
end of a pipe closes. `tree_rss_bytes` sums the resident memory of a process and all its descendants
from /proc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from bench.reaper import process_stats

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class ManagedProcess:
    """One spawned command; `started_at` is the monotonic clock just before the fork."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        log_file: Path,
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.command = list(command)
        self.log_file = log_file
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with log_file.open("ab") as log:
            self.started_at = time.monotonic()
            self._popen = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self._popen.pid

    def alive(self) -> bool:
        return self._popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    def _signal_group(self, signum: int) -> None:
        # The group outlives its leader when children remain; signalling it sweeps them too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, signum)

    def terminate(self) -> None:
        """SIGTERM to the group, without waiting."""
        if self.alive():
            self._signal_group(signal.SIGTERM)

    def kill(self) -> None:
        """kill -9 of the whole group, at once, and reap the leader: a crash, not a shutdown."""
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(10)

    def pause(self) -> None:
        """SIGSTOP of the whole group: a hung process, whose connections stay open and silent."""
        self._signal_group(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_group(signal.SIGCONT)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the process group, SIGKILL it after `timeout`, and reap the leader."""
        if self.alive():
            self._signal_group(signal.SIGTERM)
            try:
                self._popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                self._popen.wait(10)
        self._signal_group(signal.SIGKILL)

    def log_tail(self, lines: int = 25) -> str:
        try:
            tail = self.log_file.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return "(no log)"
        return "\n".join(tail)


class ProcessSet:
    """Owns spawned processes and ends all of them on exit, newest first."""

    def __init__(self) -> None:
        self._processes: list[ManagedProcess] = []
        self._reaper: subprocess.Popen[bytes] | None = None

    def _tell_reaper(self, line: str) -> None:
        if self._reaper is None or self._reaper.stdin is None:
            return
        with contextlib.suppress(OSError):
            self._reaper.stdin.write(f"{line}\n".encode())
            self._reaper.stdin.flush()

    def watch_group(self, pgid: int) -> None:
        """Have the reaper end process group `pgid` too if the harness dies before it was ended."""
        self._tell_reaper(f"+{pgid}")

    def spawn(
        self,
        name: str,
        command: Sequence[str],
        log_file: Path,
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> ManagedProcess:
        process = ManagedProcess(name, command, log_file, env=env, cwd=cwd)
        self._processes.append(process)
        self.watch_group(process.pid)
        return process

    def kill(self, process: ManagedProcess) -> None:
        """kill -9 of `process`'s group, which is then no longer owned (a restart is a new spawn)."""
        process.kill()
        self._tell_reaper(f"-{process.pid}")
        with contextlib.suppress(ValueError):
            self._processes.remove(process)

    def stop(self, process: ManagedProcess, timeout: float = 15.0) -> None:
        process.stop(timeout)
        self._tell_reaper(f"-{process.pid}")
        with contextlib.suppress(ValueError):
            self._processes.remove(process)

    def stop_together(self, processes: Sequence[ManagedProcess], timeout: float = 15.0) -> None:
        """SIGTERM all of `processes` at once, then stop each (SIGKILL for any still running after `timeout`)."""
        for process in processes:
            process.terminate()
        deadline = time.monotonic() + timeout
        for process in processes:
            self.stop(process, max(deadline - time.monotonic(), 0.1))

    def stop_all(self) -> None:
        while self._processes:
            self.stop(self._processes[-1])

    def __enter__(self) -> ProcessSet:
        self._reaper = subprocess.Popen(
            [sys.executable, "-m", "bench.reaper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            cwd=Path(__file__).resolve().parent.parent,
            start_new_session=True,
        )
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            self.stop_all()
        finally:
            reaper, self._reaper = self._reaper, None
            if reaper is not None and reaper.stdin is not None:
                with contextlib.suppress(OSError):
                    reaper.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    reaper.wait(30)


def _parent_map() -> dict[int, int]:
    return {pid: int(fields[1]) for pid, fields in process_stats().items()}


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, at the moment of the call."""
    children: dict[int, list[int]] = {}
    for child, parent in _parent_map().items():
        children.setdefault(parent, []).append(child)
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children.get(current, ()))
    return found


def _rss_bytes(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return 0
    return int(fields[1]) * PAGE_SIZE


def tree_rss_bytes(pid: int) -> int:
    """Resident set size of `pid` plus all its descendants (shared pages counted once per process)."""
    return sum(_rss_bytes(member) for member in descendants(pid))


def _pss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_pss_bytes(pid: int) -> int:
    """Proportional set size of `pid` plus all its descendants: each page shared by k processes counts 1/k
    in each, so the sum is the memory the tree uses together (RSS counts shared pages once per process)."""
    return sum(_pss_bytes(member) for member in descendants(pid))


def _cpu_seconds(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rfind(")") + 2 :].split()
    # utime, stime, and the same for waited-for children (a task process that ended counts in its parent).
    return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by `pid`, its live descendants and the children they reaped."""
    return sum(_cpu_seconds(member) for member in descendants(pid))
