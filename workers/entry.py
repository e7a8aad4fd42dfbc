"""The `kconnect` console script's entry point, which imports the command line only when it is called.

multiprocessing runs a main script's module-level code again in every process its fork server forks (the
task processes, `connect/runtime/task_process/fork_server.py`), and a console script's module-level code
is the import of its entry point: with this module as that, a task process imports nothing of the command
line or the REST stack, which it never uses.
"""

from __future__ import annotations


def main() -> int:
    from workers.cli import main as run_command

    return run_command()
