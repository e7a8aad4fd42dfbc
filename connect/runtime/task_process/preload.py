"""Imported by the worker's fork server, and only there, before it forks any task process: discovers the
installed plug-ins, which imports their modules, so that every task process forked from it starts with
them loaded instead of discovering them again for each task it runs."""

from __future__ import annotations

import contextlib

from connect.runtime.task_process.child_task import installed_plugins

# An error here would end the fork server (it only forgives ImportError); a task process that finds no
# discovered plug-ins discovers them itself, and fails its task with the reason.
with contextlib.suppress(Exception):
    installed_plugins()
