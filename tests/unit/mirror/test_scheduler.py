"""A mirror connector's admin work runs in order on its own thread, and a failing step never stops the others."""

from __future__ import annotations

import threading

from connect.mirror.scheduler import Scheduler
from tests.support.waiting import wait_until


def _fail() -> None:
    raise RuntimeError("a failing step")


def test_one_off_steps_run_in_order_and_a_failure_does_not_stop_the_rest() -> None:
    ran: list[str] = []
    scheduler = Scheduler("test")
    try:
        scheduler.once("first", lambda: ran.append("first"))
        scheduler.once("broken", _fail)
        scheduler.once("second", lambda: ran.append("second"))
        wait_until(lambda: ran == ["first", "second"], 5, "both steps")
    finally:
        scheduler.stop()


def test_repeating_jobs_repeat_and_a_negative_interval_schedules_nothing() -> None:
    counts = {"repeated": 0, "off": 0}

    def bump(name: str) -> None:
        counts[name] += 1

    scheduler = Scheduler("test")
    try:
        scheduler.every(0, "repeated", lambda: bump("repeated"))
        scheduler.every(-1, "off", lambda: bump("off"))
        wait_until(lambda: counts["repeated"] >= 2, 5, "two runs, a second apart at most")
        assert counts["off"] == 0
    finally:
        scheduler.stop()


def test_a_delayed_job_waits_one_interval_and_stop_ends_the_thread() -> None:
    ran = threading.Event()
    scheduler = Scheduler("test")
    scheduler.every(60, "later", ran.set, first_now=False)
    scheduler.stop()
    assert not ran.is_set()
    assert not scheduler._thread.is_alive()
