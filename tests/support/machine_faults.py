"""Faults of the machine around a process, made for real: a TCP port the firewall drops, and busy CPUs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.processes import end_process


def _iptables(action: str, rule: list[str]) -> None:
    # -w: wait for the xtables lock, which tests running side by side may hold.
    subprocess.run(["iptables", "-w", action, "INPUT", *rule], check=True, capture_output=True, timeout=30)


@contextmanager
def dropped_port(port: int) -> Iterator[None]:
    """Every loopback packet to or from TCP `port` silently dropped, as by a cut network: connections stay
    open on both ends, nothing more arrives and new ones are never answered. Healed on exit."""
    rules = [["-i", "lo", "-p", "tcp", direction, str(port), "-j", "DROP"] for direction in ("--dport", "--sport")]
    added = []
    try:
        for rule in rules:
            _iptables("-I", rule)
            added.append(rule)
        yield
    finally:
        for rule in added:
            _iptables("-D", rule)


@contextmanager
def busy_cpus(processes: int) -> Iterator[None]:
    """`processes` processes spinning at the default priority: on 2 cores, a load average of about that many
    more. Ended on exit."""
    spin = "while True:\n    pass\n"
    hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(processes)]
    try:
        yield
    finally:
        for hog in hogs:
            end_process(hog, 5)
