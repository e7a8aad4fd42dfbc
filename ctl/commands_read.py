"""The read-only verbs: `get connectors|plugins|loggers` and `describe connector`.

Each returns the text to print, built from REST answers only (so they work against Java Kafka Connect
too); the table is the default and `-o json|yaml` prints the same data as the REST API gave it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctl.client import ConnectClient, segment
from ctl.errors import ClusterError, NotFoundError
from ctl.output import key_values, render, table

# Connectors first, as a user looks for them most.
PLUGIN_TYPE_ORDER = {"source": 0, "sink": 1}


def get_connectors(client: ConnectClient, output: str) -> str:
    """`GET /connectors?expand=status&expand=info`: NAME, TYPE, STATE, TASKS, sorted by type then name."""
    expanded: dict[str, Any] = client.call("GET", "/connectors?expand=status&expand=info")
    return render(expanded, output, _connectors_table)


def _connectors_table(expanded: dict[str, Any]) -> str:
    rows = []
    for name, parts in expanded.items():
        status = parts.get("status", {})
        kind = status.get("type") or parts.get("info", {}).get("type", "")
        tasks = ", ".join(f"{task['id']}: {task['state']}" for task in sorted(status.get("tasks", []), key=_task_id))
        rows.append((kind, name, status.get("connector", {}).get("state", ""), tasks))
    rows.sort(key=lambda row: (row[0], row[1]))
    return table(("name", "type", "state", "tasks"), [(name, kind, state, tasks) for kind, name, state, tasks in rows])


def _task_id(task: dict[str, Any]) -> int:
    return int(task.get("id", 0))


def get_plugins(client: ConnectClient, output: str) -> str:
    """`GET /connector-plugins?connectorsOnly=false`: every plug-in type a cluster lists (Kafka ≥ 3.2)."""
    plugins: list[dict[str, Any]] = client.call("GET", "/connector-plugins", params={"connectorsOnly": "false"})
    rows = sorted(
        ((p.get("type", ""), p.get("class", ""), p.get("version", "")) for p in plugins),
        key=lambda row: (PLUGIN_TYPE_ORDER.get(row[0], len(PLUGIN_TYPE_ORDER)), row[0], row[1]),
    )
    return render(plugins, output, lambda _: table(("type", "class", "version"), rows))


def get_loggers(client: ConnectClient, output: str) -> str:
    """`GET /admin/loggers`: each logger with an explicit level, and when it was last set (KIP-495)."""
    loggers: dict[str, Any] = client.call("GET", "/admin/loggers")
    return render(loggers, output, loggers_table)


def loggers_table(loggers: dict[str, Any]) -> str:
    rows = [(name, levels.get("level", ""), levels.get("last_modified")) for name, levels in sorted(loggers.items())]
    return table(("logger", "level", "last modified"), rows)


def describe_connector(client: ConnectClient, name: str, output: str) -> str:
    """Info, status, topics and offsets of one connector, gathered from four endpoints."""
    return render(connector_description(client, name), output, _description_text)


def connector_description(client: ConnectClient, name: str) -> dict[str, Any]:
    path = f"/connectors/{segment(name)}"
    info: dict[str, Any] = client.call("GET", path)
    status: dict[str, Any] = client.call("GET", f"{path}/status")
    return {
        "name": info["name"],
        "type": info.get("type") or status.get("type"),
        "state": status.get("connector", {}).get("state"),
        "worker_id": status.get("connector", {}).get("worker_id"),
        "trace": status.get("connector", {}).get("trace"),
        "config": info.get("config", {}),
        "tasks": sorted(status.get("tasks", []), key=_task_id),
        "topics": _optional(client, f"{path}/topics", lambda body: body.get(name, {}).get("topics", [])),
        "offsets": _optional(client, f"{path}/offsets", lambda body: body.get("offsets", [])),
    }


def _optional(client: ConnectClient, path: str, pick: Callable[[Any], Any]) -> Any:
    """A part that an older cluster, or one with topic tracking off, does not serve: None then."""
    try:
        return pick(client.call("GET", path))
    except (NotFoundError, ClusterError):
        return None


def _description_text(description: dict[str, Any]) -> str:
    lines = [
        key_values(
            [
                ("Name", description["name"]),
                ("Type", description["type"]),
                ("State", description["state"]),
                ("Worker ID", description["worker_id"]),
            ]
        )
    ]
    if description["trace"]:
        lines += ["Trace:", _indented(description["trace"])]
    lines += ["Config:", key_values(sorted(description["config"].items()), indent="  ")]
    lines.append("Tasks:")
    for task in description["tasks"]:
        lines.append(f"  {task['id']}:")
        lines.append(key_values([("State", task.get("state")), ("Worker ID", task.get("worker_id"))], indent="    "))
        if task.get("trace"):
            lines += ["    Trace:", _indented(task["trace"], "      ")]
    lines.append("Topics:")
    topics = description["topics"]
    lines.append("  (not available)" if topics is None else "\n".join(f"  {topic}" for topic in topics) or "  (none)")
    lines.append("Offsets:")
    offsets = description["offsets"]
    if offsets is None:
        lines.append("  (not available)")
    elif not offsets:
        lines.append("  (none)")
    else:
        lines.append(_indented(offsets_table(offsets)))
    return "\n".join(lines)


def offsets_table(offsets: list[dict[str, Any]]) -> str:
    return table(("partition", "offset"), [(entry.get("partition"), entry.get("offset")) for entry in offsets])


def _indented(text: str, indent: str = "  ") -> str:
    return "\n".join(indent + line for line in text.rstrip().splitlines())
