"""kconnect's workers, run through `kconnect standalone` and `kconnect worker` (distributed) like any user would."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from bench.catalog import KCONNECT, KCONNECT_PROCESSES, SYSTEM_LABELS
from bench.systems.base import WorkerMode

SUBCOMMANDS = {WorkerMode.STANDALONE: "standalone", WorkerMode.DISTRIBUTED: "worker"}


def kconnect_command() -> list[str]:
    """The `kconnect` entry point beside this interpreter, else the module behind it."""
    script = shutil.which("kconnect", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "workers.cli"]


class Kconnect:
    key = KCONNECT
    label = SYSTEM_LABELS[KCONNECT]

    def unavailable_reason(self) -> str | None:
        return self.mode_unavailable_reason(WorkerMode.STANDALONE)

    def mode_unavailable_reason(self, mode: WorkerMode) -> str | None:
        subcommand = SUBCOMMANDS[mode]
        probe = subprocess.run(
            [*kconnect_command(), subcommand, "--help"], capture_output=True, text=True, check=False, timeout=60
        )
        if probe.returncode != 0:
            return f"`kconnect {subcommand}` is not available yet"
        return None

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        return {}

    def command(self, worker_properties: Path, workdir: Path, mode: WorkerMode = WorkerMode.STANDALONE) -> list[str]:
        return [*kconnect_command(), SUBCOMMANDS[mode], str(worker_properties)]

    def group_leader_port(self, workdir: Path) -> int | None:
        # Every worker places work for the slots it owns; there is no leader whose death matters.
        return None

    def settings(self) -> Mapping[str, str]:
        return {
            "command": "kconnect standalone worker.properties or kconnect worker worker.properties",
            "python": sys.version.split()[0],
        }


class KconnectTaskProcesses(Kconnect):
    """The same workers with `task.isolation=process`: each task in a child process of its worker."""

    key = KCONNECT_PROCESSES
    label = SYSTEM_LABELS[KCONNECT_PROCESSES]

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        return {"task.isolation": "process"}
