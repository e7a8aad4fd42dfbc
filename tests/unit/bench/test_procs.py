"""Processes the benchmark harness starts die with it: on a clean exit, on kill -9 of one, and on kill -9 of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from bench.procs import ProcessSet, descendants, tree_cpu_seconds, tree_pss_bytes, tree_rss_bytes
from bench.reaper import apply, command_line
from tests.support.waiting import wait_until

REPO = Path(__file__).resolve().parents[3]
# A shell whose own child (a grandchild of the harness) keeps running: process-group signalling must reach it.
FAMILY = ["sh", "-c", "sleep 300 & echo $! > grandchild.pid; wait"]


def running(pid: int) -> bool:
    return process_state(pid) not in ("gone", "Z")


def process_state(pid: int) -> str:
    """`pid`'s state letter (R, S, Z, ...), or "gone"."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def grandchild(directory: Path) -> int:
    pid_file = directory / "grandchild.pid"
    wait_until(lambda: pid_file.exists() and pid_file.read_text().strip().isdigit(), 20)
    return int(pid_file.read_text())


def test_leaving_the_set_ends_every_process_it_started_and_their_children(tmp_path: Path) -> None:
    with ProcessSet() as processes:
        leader = processes.spawn("family", FAMILY, tmp_path / "family.log", cwd=tmp_path)
        child = grandchild(tmp_path)
        assert running(leader.pid) and running(child)
    assert not leader.alive()
    wait_until(lambda: not running(child), 20)


def test_a_kill_ends_the_whole_group_at_once(tmp_path: Path) -> None:
    with ProcessSet() as processes:
        leader = processes.spawn("family", FAMILY, tmp_path / "family.log", cwd=tmp_path)
        child = grandchild(tmp_path)
        processes.kill(leader)
        assert leader.returncode == -signal.SIGKILL
        wait_until(lambda: not running(child), 20)


HARNESS = """
import sys, time
from pathlib import Path
from bench.procs import ProcessSet, descendants, tree_cpu_seconds, tree_pss_bytes, tree_rss_bytes
directory = Path(sys.argv[1])
with ProcessSet() as processes:
    processes.spawn("family", {family!r}, directory / "family.log", cwd=directory)
    (directory / "spawned").touch()
    time.sleep(300)
"""


def test_the_reaper_ends_the_groups_of_a_harness_killed_with_sigkill(tmp_path: Path) -> None:
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS.format(family=FAMILY), str(tmp_path)], cwd=REPO, start_new_session=True
    )
    try:
        wait_until(lambda: (tmp_path / "spawned").exists(), 20)
        child = grandchild(tmp_path)
        reaper = next(pid for pid in descendants(harness.pid) if b"bench.reaper" in command_line(pid))
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(10)
        try:
            wait_until(lambda: not running(child), 20, what="the grandchild's end")
        except AssertionError as error:
            states = f"reaper {process_state(reaper)}, grandchild {process_state(child)}"
            raise AssertionError(f"{error}: {states}") from None
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait(10)


def test_the_reaper_lists_groups_as_told_and_ignores_garbage() -> None:
    groups: dict[int, bytes] = {}
    for line in (f"+{os.getpid()}", "+x", "oops", "", f"+{os.getppid()}", f"-{os.getppid()}"):
        apply(line, groups)
    assert list(groups) == [os.getpid()]
    assert groups[os.getpid()] == Path(f"/proc/{os.getpid()}/cmdline").read_bytes()


def test_a_process_trees_memory_and_cpu_include_its_children() -> None:
    # A child that touches 64 MiB of its own and burns CPU: the tree's figures must grow by it.
    script = (
        "b = bytearray(64 << 20)\n"
        "for i in range(0, len(b), 4096): b[i] = 1\n"
        "import time\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.3: pass\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    before_cpu = tree_cpu_seconds(os.getpid())
    alone_pss = tree_pss_bytes(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        assert tree_pss_bytes(os.getpid()) - alone_pss > 60 << 20
        assert tree_rss_bytes(os.getpid()) >= tree_pss_bytes(os.getpid())
        assert tree_cpu_seconds(os.getpid()) - before_cpu >= 0.3
    finally:
        child.kill()
        child.communicate()
