"""`run_ctl`: `kconnect ctl` as a separate process, the way a user or a script runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def run_ctl(url: str, *args: str, stdin: str | None = None, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """`python -m workers.cli ctl ARGS --url URL`, its exit code and output captured."""
    command = [sys.executable, "-m", "workers.cli", "ctl", *args, "--url", url]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout, check=False)


def ctl_json(url: str, *args: str) -> Any:
    """The `-o json` output of a command that must succeed."""
    result = run_ctl(url, *args, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
