"""The fork server imports, once, what each task process would otherwise import as it starts: the runtime,
the plug-ins, and the modules of the worker's main script (which multiprocessing runs again in every
process it forks when the script was run by path, as the `kconnect` console script is)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]

# A module whose every import leaves a line in a file: how many processes imported it on their own.
COUNTED = """
import os
with open(os.environ["IMPORTS_FILE"], "a") as imports:
    imports.write(f"{os.getpid()}\\n")

def run():
    return 0
"""

# A main script, run by path like a console script: its module-level code imports `counted`.
SCRIPT = """
import sys
from counted import run
from connect.runtime.task_process.fork_server import fork_server, main_script_modules

def report(path):
    import sys
    with open(path, "w") as out:
        out.write("plugins loaded\\n" if "connectors.file.source" in sys.modules else "plugins missing\\n")

if __name__ == "__main__":
    print(",".join(main_script_modules()))
    context = fork_server()
    for index in range(3):
        process = context.Process(target=report, args=(sys.argv[1] + f".{index}",))
        process.start()
        process.join(60)
        assert process.exitcode == 0, process.exitcode
"""


def run_python(tmp_path: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """This interpreter on `args`, with `tmp_path` and the repository to import from."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env={"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_main(tmp_path: Path, as_module: bool) -> tuple[str, list[str]]:
    """Run SCRIPT as a main script by path, or as a main module (`python -m`): what it printed, and the
    processes that imported `counted` themselves."""
    (tmp_path / "counted.py").write_text(COUNTED)
    (tmp_path / "main_script.py").write_text(textwrap.dedent(SCRIPT))
    imports = tmp_path / "imports.txt"
    main = ["-m", "main_script"] if as_module else [str(tmp_path / "main_script.py")]
    done = run_python(tmp_path, [*main, str(tmp_path / "report")], IMPORTS_FILE=str(imports))
    assert done.returncode == 0, done.stderr
    # Nothing on stderr: a worker logging JSON lines there must not get a stray warning among them.
    assert done.stderr == ""
    return done.stdout.strip(), imports.read_text().split()


def test_the_modules_of_a_main_script_run_by_path_are_imported_once_by_the_fork_server_not_by_each_process(
    tmp_path: Path,
) -> None:
    modules, importers = run_main(tmp_path, as_module=False)
    # `run` comes from `counted`, `fork_server` and `main_script_modules` from the runtime; `sys` it holds.
    assert modules.split(",") == ["connect.runtime.task_process.fork_server", "counted", "sys"]
    # The script itself and the fork server: none of the three forked processes imported it again.
    assert len(importers) == 2, importers


def test_the_imports_of_a_main_module_run_with_dash_m_are_imported_once_by_the_fork_server_not_by_each_process(
    tmp_path: Path,
) -> None:
    modules, importers = run_main(tmp_path, as_module=True)
    # What it imported, not itself (runpy warns when a main module it runs again is imported already).
    assert modules.split(",") == ["connect.runtime.task_process.fork_server", "counted", "sys"]
    assert len(importers) == 2, importers


def test_a_forked_task_process_starts_with_the_installed_plugins_imported(tmp_path: Path) -> None:
    run_main(tmp_path, as_module=False)
    for index in range(3):
        assert (tmp_path / f"report.{index}").read_text() == "plugins loaded\n"


def test_a_packages_main_module_is_not_run_again_so_names_nothing(tmp_path: Path) -> None:
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "from connect.runtime.task_process.fork_server import main_script_modules\nprint(main_script_modules())\n"
    )
    done = run_python(tmp_path, ["-m", "app"])
    assert done.stdout.strip() == "[]", done.stderr
