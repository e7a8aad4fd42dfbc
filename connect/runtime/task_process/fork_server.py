"""The worker's fork server (multiprocessing's `forkserver`), which forks every task process.

It is started with the first task process and imports, before it forks any, what each task process would
otherwise import for itself: the task process's runtime (`child`), the installed plug-ins (`preload`),
and the modules the worker's main script took its functions from. multiprocessing runs a main script's
module-level code again in each process it forks from a fork server (its `if __name__ == "__main__"` part
does not run); for the `kconnect` console script that is `from workers.cli import main`, the worker's
whole command line and REST stack: 0.1 s of each task process's start, unless the fork server has it
imported already. The server forks from a single thread, so no task process inherits a lock held.
"""

from __future__ import annotations

import functools
import inspect
import multiprocessing
import sys
from multiprocessing.context import ForkServerContext

TASK_PROCESS_MODULES = ("connect.runtime.task_process.child", "connect.runtime.task_process.preload")


@functools.cache
def fork_server() -> ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([*TASK_PROCESS_MODULES, *main_script_modules()])
    return context


def main_script_modules() -> list[str]:
    """The modules the functions and classes of a main script (run by path, not as a module) come from;
    multiprocessing runs a script run by path again in each process it forks, and a module run with
    `python -m` not at all."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None or not getattr(main, "__file__", None):
        return []
    imported = {value for value in vars(main).values() if inspect.isfunction(value) or inspect.isclass(value)}
    return sorted({value.__module__ for value in imported} - {"__main__", "__mp_main__"})
