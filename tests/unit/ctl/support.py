"""`ctl(...)`: run `kconnect ctl` in-process and return its exit code, stdout and stderr."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from workers.cli import main


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def ctl(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    capsys.readouterr()
    try:
        code = main(["ctl", *args])
    except SystemExit as exit_:  # argparse's usage errors
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
