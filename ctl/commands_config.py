"""`kconnect ctl config ...`: the named contexts of the config file (local only, no cluster is called)."""

from __future__ import annotations

from pathlib import Path

from ctl import contexts
from ctl.contexts import Context, ContextFile
from ctl.errors import ClusterError, UsageError
from ctl.output import table


def set_context(
    path: Path, name: str, url: str | None, user: str | None, password: str | None, ca_file: str | None
) -> str:
    """Add or change a context; the first one becomes current."""
    file = contexts.load(path)
    existing = file.contexts.get(name)
    if existing is None:
        if url is None:
            raise UsageError(f"A new context needs --url (there is no context '{name}' yet)")
        context = Context(url, user, password, ca_file)
    else:
        context = existing.updated(url=url, user=user, password=password, ca_file=ca_file)
    file.contexts[name] = context
    if file.current is None:
        file.current = name
    contexts.save(path, file)
    return f"Context '{name}' {'created' if existing is None else 'updated'} ({context.url})"


def use_context(path: Path, name: str) -> str:
    file = _with_context(path, name)
    file.current = name
    contexts.save(path, file)
    return f"Switched to context '{name}' ({file.contexts[name].url})"


def delete_context(path: Path, name: str) -> str:
    file = _with_context(path, name)
    del file.contexts[name]
    if file.current == name:
        file.current = None
    contexts.save(path, file)
    return f"Deleted context '{name}'"


def get_contexts(path: Path) -> str:
    """The contexts as a table; a password shows only as `***`."""
    file = contexts.load(path)
    rows = [
        (
            "*" if name == file.current else "",
            name,
            context.url,
            context.user,
            "***" if context.password else "",
            context.ca_file,
        )
        for name, context in sorted(file.contexts.items())
    ]
    return table(("current", "name", "url", "user", "password", "ca file"), rows)


def current_context(path: Path) -> str:
    file = contexts.load(path)
    if file.current is None:
        raise ClusterError(f"No current context is set in {path}")
    return file.current


def _with_context(path: Path, name: str) -> ContextFile:
    file = contexts.load(path)
    if name not in file.contexts:
        raise UsageError(f"No context named '{name}' in {path}")
    return file
