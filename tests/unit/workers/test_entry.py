"""The `kconnect` console script's entry module stays light: multiprocessing imports it again in every task
process, which must not carry the command line and REST stack it never uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_importing_the_console_scripts_entry_point_imports_neither_the_command_line_nor_the_rest_stack() -> None:
    probe = (
        "import sys, workers.entry; print(sorted(m for m in ('workers.cli', 'fastapi', 'httpx') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_console_scripts_entry_point_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from workers.entry import main; sys.argv = ['kconnect', '--help']; main()"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "usage: kconnect" in done.stdout
