"""A description of the machine and software a run measured, stored with every benchmark entry."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / (1024 * 1024), 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def java_version(java: str | None = None) -> str:
    """The first line `java -version` prints, e.g. `openjdk version "17.0.15" 2025-04-15`."""
    binary = java or shutil.which("java")
    if binary is None:
        return "not installed"
    result = subprocess.run([binary, "-version"], capture_output=True, text=True, check=False, timeout=30)
    lines = (result.stderr or result.stdout).strip().splitlines()
    return lines[0] if lines else "unknown"


def _client_versions() -> dict[str, str]:
    try:
        import confluent_kafka
    except ImportError:
        return {}
    return {"confluent_kafka": str(confluent_kafka.__version__), "librdkafka": confluent_kafka.libversion()[0]}


# The fields of /proc/stat's "cpu" line that count as idle: idle and iowait (a core waiting on I/O runs nothing).
IDLE_FIELDS = (3, 4)


def busy_cpu_seconds() -> float:
    """CPU seconds all the machine's cores have spent on anything but idling since boot, whoever ran.

    Every process counts (workers, the broker, the harness): the difference over an interval ÷ its length is
    how many cores were busy, which bounds what more tasks can add on the same machine."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()
    # user nice system idle iowait irq softirq steal guest guest_nice; guest time is already inside user.
    ticks = [int(value) for value in first[1:9]]
    return sum(value for index, value in enumerate(ticks) if index not in IDLE_FIELDS) / CLOCK_TICKS


def describe(kafka_version: str) -> dict[str, Any]:
    """What the report prints under "Machine"; no host names or paths."""
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "java": java_version(),
        "kafka": kafka_version,
        **_client_versions(),
    }
