"""What /proc says of processes: whether one lives, when some die, which live processes a parent has, which
TCP ports one listens on; and ending a child."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces; the fields after it are fixed.
    state, ppid = stat[stat.rfind(")") + 2 :].split()[:2]
    return state, int(ppid)


class DeathWatch:
    """Notes, every millisecond on a thread of its own, the moment each of `pids` ends (a zombie has ended):
    for a test that must know when a process died, not when it looked. `ended()` once they have."""

    def __init__(self, pids: set[int]) -> None:
        self._alive = set(pids)
        self._ended: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="death-watch", daemon=True)
        self._thread.start()

    def ended(self) -> dict[int, float]:
        """pid -> time.time() at which it was first seen gone, for those gone so far."""
        return dict(self._ended)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _watch(self) -> None:
        while self._alive and not self._stop.wait(0.001):
            for pid in [pid for pid in self._alive if not is_alive(pid)]:
                self._ended[pid] = time.time()
                self._alive.discard(pid)


def is_alive(pid: int) -> bool:
    """The process exists and is not a zombie (exited, not reaped yet)."""
    found = _state_and_parent(pid)
    return found is not None and found[0] != "Z"


def live_children(pid: int) -> set[int]:
    """The live processes whose parent is `pid`."""
    children = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = _state_and_parent(int(entry.name))
            if found is not None and found[1] == pid and found[0] != "Z":
                children.add(int(entry.name))
    return children


def task_processes_of(worker_pid: int) -> set[int]:
    """A worker's live task processes: its fork server's children (the worker's grandchildren)."""
    return {grandchild for child in live_children(worker_pid) for grandchild in live_children(child)}


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process `pid` listens on (its own sockets, IPv4 and IPv6)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("tcp", "tcp6"):
        for row in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = row.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:  # 0A: LISTEN
                ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


def end_process(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM `process`, and SIGKILL it if it has not exited within `timeout` seconds; reaped either way."""
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
