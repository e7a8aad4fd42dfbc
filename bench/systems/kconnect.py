"""kconnect's standalone worker, run through its `kconnect standalone` command like any user would."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from bench.catalog import KCONNECT, SYSTEM_LABELS


def kconnect_command() -> list[str]:
    """The `kconnect` entry point beside this interpreter, else the module behind it."""
    script = shutil.which("kconnect", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "workers.cli"]


class Kconnect:
    key = KCONNECT
    label = SYSTEM_LABELS[KCONNECT]

    def unavailable_reason(self) -> str | None:
        probe = subprocess.run(
            [*kconnect_command(), "standalone", "--help"], capture_output=True, text=True, check=False, timeout=60
        )
        if probe.returncode != 0:
            return "`kconnect standalone` is not available yet"
        return None

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        return {}

    def command(self, worker_properties: Path, workdir: Path) -> list[str]:
        return [*kconnect_command(), "standalone", str(worker_properties)]

    def settings(self) -> Mapping[str, str]:
        return {"command": "kconnect standalone worker.properties", "python": sys.version.split()[0]}
