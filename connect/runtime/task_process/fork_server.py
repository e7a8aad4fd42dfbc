"""The worker's fork server (multiprocessing's `forkserver`), which forks every task process.

It is started with the first task process and imports, before it forks any, what each task process would
otherwise import for itself: the task process's runtime (`child`), the installed plug-ins (`preload`), and
what multiprocessing runs again in each process it forks from the worker's main module: its module-level
code (not its `if __name__ == "__main__"` part). A worker run as `python -m workers.cli` would otherwise
import the whole command line again in each task process (0.1 s); the `kconnect` console script imports
only `workers.entry`. The server forks from a single thread, so no task process inherits a lock held.
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
    """What the worker's main module imported at its top level (the modules it holds, and those its functions
    and classes come from), which multiprocessing's run of its module-level code in each forked process
    imports again; nothing for a package's `__main__`, which it does not run again. Not the main module
    itself: run again by name while imported, runpy warns of "unpredictable behaviour" on stderr."""
    main = sys.modules.get("__main__")
    if main is None:
        return []
    spec = getattr(main, "__spec__", None)
    if spec is not None and (spec.name == "__main__" or spec.name.endswith(".__main__")):
        return []
    if spec is None and not getattr(main, "__file__", None):
        return []
    names = set()
    for value in vars(main).values():
        if inspect.ismodule(value):
            names.add(value.__name__)
        elif inspect.isfunction(value) or inspect.isclass(value):
            names.add(value.__module__)
    return sorted(names - {"__main__", "__mp_main__", "builtins", *([spec.name] if spec is not None else [])})
