"""`make run`'s greeting: where the dashboard, the metrics and `kconnect ctl` are, with a command that runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workers.demo import banner

URL = "http://127.0.0.1:8083"


def test_the_greeting_names_the_dashboard_the_metrics_and_a_ctl_command_that_runs_from_here() -> None:
    text = banner(URL + "/", "127.0.0.1:9092", Path("/tmp/demo.txt"), 10)

    assert f"Dashboard         {URL}/ui" in text
    assert f"Metrics           {URL}/metrics" in text
    ctl_lines = [line.split() for line in text.splitlines() if " ctl --url " in line]
    assert ctl_lines and all(line[3] == URL for line in ctl_lines)
    # The script beside this Python, which a fresh clone's virtual environment does not put on PATH.
    answer = subprocess.run([ctl_lines[0][0], "ctl", "--help"], capture_output=True, text=True, timeout=60)
    assert answer.returncode == 0 and "--url URL" in answer.stdout, answer.stderr
