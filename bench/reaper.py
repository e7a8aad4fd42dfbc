"""`python -m bench.reaper`: ends the harness's process groups when the harness dies without cleaning up.

`finally` blocks cover errors, Ctrl-C and SIGTERM, but not SIGKILL or a crash of the interpreter. This
small process is started by `ProcessSet` with a pipe as its standard input; the harness writes
`+<pgid>` for every process group it starts (workers, the broker's nodes) and `-<pgid>` once it ended
it. The pipe reaches end-of-file when the harness exits, however it exits; the reaper then sends
SIGTERM, and SIGKILL after a grace period, to every group still listed whose leader still runs the
command it ran when it was listed (so a recycled pid is never signalled). After a clean exit the list
is empty and it just leaves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable
from pathlib import Path

GRACE_SECONDS = 10.0


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def apply(line: str, groups: dict[int, bytes]) -> None:
    """One `+pgid` or `-pgid` line into `groups` (pgid -> the leader's command line when listed)."""
    line = line.strip()
    if len(line) < 2 or line[0] not in "+-" or not line[1:].isdigit():
        return
    pgid = int(line[1:])
    if line[0] == "+":
        groups[pgid] = command_line(pgid)
    else:
        groups.pop(pgid, None)


def still_ours(groups: dict[int, bytes]) -> list[int]:
    return [pgid for pgid, command in groups.items() if command and command_line(pgid) == command]


def process_stats() -> dict[int, list[str]]:
    """Every process now: pid -> the fields of /proc/<pid>/stat after the command (state, ppid, pgrp, ...)."""
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces; the fields after it are fixed.
        stats[int(entry.name)] = stat[stat.rfind(")") + 2 :].split()
    return stats


def live_groups() -> set[int]:
    """The process groups that have a member which has not exited (zombies are done)."""
    return {int(fields[2]) for fields in process_stats().values() if fields[0] != "Z"}


def end_groups(pgids: Iterable[int], grace: float = GRACE_SECONDS) -> None:
    pending = list(pgids)
    for pgid in pending:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    # A group is done when every member is, not when its leader is: a child may outlive its leader.
    while pending and time.monotonic() < deadline:
        time.sleep(0.2)
        pending = [pgid for pgid in pending if pgid in live_groups()]
    for pgid in pending:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def main() -> int:
    # The harness's Ctrl-C reaches its whole foreground group; the reaper must outlive the harness.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    groups: dict[int, bytes] = {}
    for line in sys.stdin:
        apply(line, groups)
    end_groups(still_ours(groups))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
