"""Detached `java` processes of the local cluster: spawning, pid files, and proving a pid is still ours.

A pid file alone is not proof: after a reboot or a crash the pid may belong to anything. Every node is
started with `-Dkconnect.node.dir=<its directory>` on its command line, and nothing is signalled
unless `/proc/<pid>/cmdline` (or `ps` where there is no /proc) still carries that exact argument.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

PID_FILE = "kafka.pid"
MARKER_PROPERTY = "kconnect.node.dir"


def marker_argument(node_dir: Path) -> str:
    return f"-D{MARKER_PROPERTY}={node_dir.resolve()}"


def spawn_detached(command: list[str], log_file: Path) -> int:
    """Start `command` in its own session with stdout/stderr appended to `log_file`; returns the pid.

    posix_spawn rather than subprocess.Popen: the process must outlive the CLI, and a Popen object
    dropped while its child runs warns (an error under pytest's `filterwarnings = error`).
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, str(log_file), flags, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    pid = os.posix_spawn(command[0], command, dict(os.environ), file_actions=actions, setsid=True)
    # posix_spawn returns once the child has begun exec, which can be before the kernel publishes the
    # new argv; until then /proc/<pid>/cmdline would make the node look like someone else's process.
    deadline = time.monotonic() + 5
    while _cmdline(pid)[: len(command)] != command and time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            break
        time.sleep(0.005)
    return pid


def _reap(pid: int) -> None:
    # When the caller spawned the node itself (tests use the Python API), the exited child stays a
    # zombie with a live /proc entry until it is waited for.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _cmdline(pid: int) -> list[str]:
    proc = Path(f"/proc/{pid}/cmdline")
    if Path("/proc/self").exists():
        try:
            return proc.read_bytes().decode(errors="replace").split("\0")
        except OSError:
            return []
    result = subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True, text=True)
    return result.stdout.split()


def is_ours(pid: int, node_dir: Path) -> bool:
    """True while `pid` is a live process started for `node_dir` (zombies have an empty cmdline)."""
    _reap(pid)
    return marker_argument(node_dir) in _cmdline(pid)


def read_pid(node_dir: Path) -> int | None:
    try:
        return int((node_dir / PID_FILE).read_text().strip())
    except (OSError, ValueError):
        return None


def write_pid(node_dir: Path, pid: int) -> None:
    (node_dir / PID_FILE).write_text(f"{pid}\n")


def clear_pid(node_dir: Path) -> None:
    (node_dir / PID_FILE).unlink(missing_ok=True)


def running_pid(node_dir: Path) -> int | None:
    """The node's pid if its pid file names a live process of ours; a stale pid file is removed."""
    pid = read_pid(node_dir)
    if pid is None:
        return None
    if is_ours(pid, node_dir):
        return pid
    clear_pid(node_dir)
    return None


def terminate(pids: dict[Path, int], timeout: float) -> list[int]:
    """SIGTERM every (node_dir, pid) still ours, SIGKILL what outlives `timeout`; returns pids ended."""
    ours = {node_dir: pid for node_dir, pid in pids.items() if is_ours(pid, node_dir)}
    for pid in ours.values():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    alive = dict(ours)
    while alive and time.monotonic() < deadline:
        alive = {d: p for d, p in alive.items() if is_ours(p, d)}
        if alive:
            time.sleep(0.1)
    for node_dir, pid in alive.items():
        # Re-checked right before the kill: the pid could have been reused since the SIGTERM.
        if is_ours(pid, node_dir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    kill_deadline = time.monotonic() + 10
    while any(is_ours(p, d) for d, p in alive.items()) and time.monotonic() < kill_deadline:
        time.sleep(0.05)
    for pid in ours.values():
        _wait_reaped(pid, kill_deadline)
    return sorted(ours.values())


def kill_now(pid: int, timeout: float = 10.0) -> None:
    """SIGKILL `pid` (the caller has proved it ours) and wait until it is gone and reaped."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while _cmdline(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.02)
    _wait_reaped(pid, deadline)


def _wait_reaped(pid: int, deadline: float) -> None:
    # A dying process loses its cmdline before it becomes a zombie; when we are its parent, wait
    # for the zombie so none lingers in a long-lived caller such as a test session.
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
        except ChildProcessError:
            return
        time.sleep(0.01)
