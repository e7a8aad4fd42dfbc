"""`history CONNECTOR` and `rollback CONNECTOR --to N`: a connector's config versions (kconnect's
`GET /connectors/{c}/history`) and putting an earlier one back.

A rollback is an ordinary `PUT /connectors/{c}/config` of version N's config, so it needs the permission to
edit the connector, is audited like any update, and becomes the newest version itself.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ctl.client import ConnectClient, segment
from ctl.commands_write import current_config
from ctl.errors import UsageError
from ctl.output import render, table

HIDDEN = "[hidden]"


def versions(client: ConnectClient, name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = client.call("GET", f"/connectors/{segment(name)}/history")
    return found


def history(client: ConnectClient, name: str, output: str) -> str:
    """VERSION, WRITTEN (UTC), BY and what changed from the version before."""
    return render(versions(client, name), output, _history_table)


def _history_table(found: list[dict[str, Any]]) -> str:
    rows = []
    previous: dict[str, str] | None = None
    for entry in found:
        config = entry.get("config")
        rows.append(
            (entry["version"], _when(entry.get("timestamp")), entry.get("user") or "-", change(previous, config))
        )
        previous = config
    return table(("version", "written", "by", "change"), rows)


def change(before: dict[str, str] | None, after: dict[str, str] | None) -> str:
    """`created`, `deleted`, `unchanged`, or the keys added (+), changed (~) and removed (-)."""
    if after is None:
        return "deleted"
    if before is None:
        return "created"
    parts = [f"+{k}" for k in sorted(after.keys() - before.keys())]
    parts += [f"~{k}" for k in sorted(k for k in after.keys() & before.keys() if after[k] != before[k])]
    parts += [f"-{k}" for k in sorted(before.keys() - after.keys())]
    return " ".join(parts) or "unchanged"


def rollback(client: ConnectClient, name: str, to: int) -> str:
    """Put version `to`'s config back (it becomes the newest version)."""
    found = {entry["version"]: entry for entry in versions(client, name)}
    entry = found.get(to)
    if entry is None:
        known = ", ".join(str(number) for number in sorted(found)) or "none"
        raise UsageError(f"Connector {name} has no version {to} (versions known: {known})")
    config = entry.get("config")
    if config is None:
        raise UsageError(f"Version {to} of connector {name} deleted it: roll back to a version with a config")
    if HIDDEN in config.values():
        raise UsageError(f"Version {to} of connector {name} has secret values hidden from you: it cannot be put back")
    if current_config(client, name) == config:
        return f"Unchanged connector {name}: version {to} is its config"
    client.call("PUT", f"/connectors/{segment(name)}/config", body=config)
    return f"Rolled back connector {name} to version {to}"


def _when(timestamp_ms: Any) -> str:
    if not isinstance(timestamp_ms, int) or timestamp_ms <= 0:
        return "-"
    return datetime.fromtimestamp(timestamp_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
