"""Print kconnect's requirements from pyproject.toml, one a line, for `pip install --requirement`.

`requirements.py core sql` prints the project's dependencies and the `sql` extra; `requirements.py spark`
only the `spark` extra. The image build installs the dependencies in their own layers before it copies
the source, so that a change to the code does not reinstall them.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

CORE = "core"


def requirements(pyproject: Path, groups: list[str]) -> list[str]:
    project = tomllib.loads(pyproject.read_text())["project"]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    lines: list[str] = []
    for group in groups:
        if group == CORE:
            lines.extend(project["dependencies"])
        elif group in extras:
            lines.extend(extras[group])
        else:
            raise SystemExit(f"unknown group {group!r}: {CORE!r} or one of the extras {sorted(extras)}")
    return lines


if __name__ == "__main__":
    here = Path(sys.argv[0]).resolve().parent
    pyproject = here / "pyproject.toml" if (here / "pyproject.toml").exists() else here.parent / "pyproject.toml"
    print("\n".join(requirements(pyproject, sys.argv[1:])))
