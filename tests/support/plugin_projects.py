"""A plug-in author's project checked against kconnect as installed: kconnect's wheel in a fresh virtual
environment of its own, and `mypy --strict` run there."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]


def packaged_folders() -> list[str]:
    """The top-level packages pyproject.toml has setuptools find (`include = ["connect*", ...]`)."""
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())
    return [pattern.rstrip("*") for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]]


def kconnect_environment(place: Path) -> Path:
    """The Python of a fresh virtual environment under `place` with kconnect's wheel installed (no dependencies:
    mypy needs only kconnect's own modules to check a plug-in against them)."""
    # Built from a copy of what the wheel is made of: setuptools would reuse a checkout's stale build/ tree.
    source = place / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPOSITORY / name, source / name)
    for package in packaged_folders():
        shutil.copytree(REPOSITORY / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([*PIP, "wheel", "--no-deps", "-w", str(place / "wheels"), str(source)], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(place / "venv")], check=True)
    python = place / "venv" / "bin" / "python"
    wheel = next((place / "wheels").glob("kconnect-*.whl"))
    subprocess.run([*PIP, "--python", str(python), "install", "--no-deps", str(wheel)], check=True)
    return python


def mypy_strict(python: Path, *targets: Path) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` of `targets` (files or folders of one project folder) with `python`'s packages."""
    project = targets[0].parent
    command = [sys.executable, "-m", "mypy", "--strict", "--python-executable", str(python)]
    command += ["--cache-dir", str(project / ".mypy_cache"), "--no-incremental", *(t.name for t in targets)]
    # Run from the plug-in's folder: mypy also looks for modules in its working directory, where a checkout's
    # sources would stand in for the installed wheel.
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=project)
