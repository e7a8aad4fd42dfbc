"""A plug-in author's project checked against kconnect as installed: kconnect's wheel in a fresh virtual
environment of its own (with its dependencies, pytest and mypy), the project's wheel installed there, its tests
and `mypy --strict` run there."""

from __future__ import annotations

import os
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


def kconnect_wheel(place: Path) -> Path:
    """kconnect's wheel, built under `place` from a copy of what the wheel is made of (setuptools would reuse a
    checkout's stale build/ tree)."""
    source = place / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPOSITORY / name, source / name)
    for package in packaged_folders():
        shutil.copytree(REPOSITORY / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([*PIP, "wheel", "--no-deps", "-w", str(place / "wheels"), str(source)], check=True)
    return next((place / "wheels").glob("kconnect-*.whl"))


def author_environment(place: Path) -> Path:
    """The bin folder of a fresh virtual environment under `place`, as a plug-in author makes one: kconnect's
    wheel with its dependencies, pytest and mypy."""
    wheel = kconnect_wheel(place)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(place / "venv")], check=True)
    bin_folder = place / "venv" / "bin"
    subprocess.run([*PIP, "--python", str(bin_folder / "python"), "install", str(wheel), "pytest", "mypy"], check=True)
    return bin_folder


def run_in(bin_folder: Path, *command: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`command` with the environment's own Python (`python -m ...`) or scripts, in `cwd`, its output captured;
    none of this run's pytest variables (an xdist worker's) leak into it."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env["PATH"] = f"{bin_folder}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    program = str(bin_folder / command[0])
    return subprocess.run([program, *command[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def install_project(bin_folder: Path, project: Path, wheels: Path) -> Path:
    """Build `project` into a wheel in `wheels` and install that wheel into the environment; the wheel."""
    subprocess.run([*PIP, "wheel", "--no-deps", "-w", str(wheels), str(project)], check=True)
    name = project.name.replace("-", "_")
    wheel = next(wheels.glob(f"{name}-*.whl"))
    subprocess.run([*PIP, "--python", str(bin_folder / "python"), "install", "--no-deps", str(wheel)], check=True)
    return wheel


def mypy_strict(bin_folder: Path, *targets: Path) -> subprocess.CompletedProcess[str]:
    """The environment's `mypy --strict` of `targets` (files or folders of one project folder), run from the
    project's folder, as its author would."""
    project = targets[0].parent
    command = ["python", "-m", "mypy", "--strict", "--cache-dir", str(project / ".mypy_cache"), "--no-incremental"]
    return run_in(bin_folder, *command, *(t.name for t in targets), cwd=project)
