"""Offsets (KIP-875) and log levels (KIP-495) of a cluster.

Kafka alters and resets offsets only while the connector is STOPPED; the state is checked first so
the user reads what to do (`kconnect ctl stop NAME`) rather than a bare 400 or 409.
"""

from __future__ import annotations

import json
from typing import Any

from ctl.client import ConnectClient, segment
from ctl.commands_read import get_loggers, offsets_table
from ctl.errors import ClusterError, UsageError
from ctl.output import render, table


def offsets_get(client: ConnectClient, name: str, output: str) -> str:
    """`GET /connectors/{c}/offsets`."""
    body: dict[str, Any] = client.call("GET", f"/connectors/{segment(name)}/offsets")
    return render(
        body,
        output,
        lambda data: offsets_table(data["offsets"]) if data.get("offsets") else f"Connector {name} has no offsets",
    )


def offsets_alter(client: ConnectClient, name: str, offsets: list[dict[str, Any]]) -> str:
    """`PATCH /connectors/{c}/offsets` with `{"offsets": [...]}`; Kafka's message on success."""
    _require_stopped(client, name, "altered")
    answer = client.call("PATCH", f"/connectors/{segment(name)}/offsets", body={"offsets": offsets})
    return str(answer.get("message", f"Altered the offsets of connector {name}")) if answer else "Offsets altered"


def offsets_reset(client: ConnectClient, name: str) -> str:
    """`DELETE /connectors/{c}/offsets`; Kafka's message on success."""
    _require_stopped(client, name, "reset")
    answer = client.call("DELETE", f"/connectors/{segment(name)}/offsets")
    return str(answer.get("message", f"Reset the offsets of connector {name}")) if answer else "Offsets reset"


def _require_stopped(client: ConnectClient, name: str, done: str) -> None:
    status: dict[str, Any] = client.call("GET", f"/connectors/{segment(name)}/status")
    state = status.get("connector", {}).get("state")
    if state != "STOPPED":
        raise ClusterError(
            f"Connector {name} is {state}: offsets can only be {done} while it is STOPPED "
            f"(run `kconnect ctl stop {name}` first)"
        )


def offsets_from_options(
    file_offsets: str | None,
    topic: str | None,
    partition: int | None,
    offset: int | None,
    source_partition: str | None,
    source_offset: str | None,
) -> list[dict[str, Any]]:
    """The `offsets` list of an alter request, from a JSON file or the sink/source shortcuts."""
    if file_offsets is not None:
        document = _json(file_offsets, "--file")
        entries = document.get("offsets") if isinstance(document, dict) else document
        if not isinstance(entries, list):
            raise UsageError('The offsets file must hold {"offsets": [...]} or a list')
        return entries
    if topic is not None:
        if partition is None or offset is None:
            raise UsageError("--topic needs --partition and --offset")
        return [{"partition": {"kafka_topic": topic, "kafka_partition": partition}, "offset": {"kafka_offset": offset}}]
    if source_partition is not None and source_offset is not None:
        return [
            {
                "partition": _json(source_partition, "--source-partition"),
                "offset": _json(source_offset, "--source-offset"),
            }
        ]
    raise UsageError("Give -f FILE, --topic/--partition/--offset (sinks) or --source-partition/--source-offset")


def _json(text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{option} is not valid JSON: {exc}") from exc


def logger_level(client: ConnectClient, logger: str | None, level: str | None, scope: str, output: str) -> str:
    """Show the loggers, or one logger, or set a logger's level (`PUT /admin/loggers/{l}?scope=`)."""
    if logger is None:
        if level is not None:
            raise UsageError("--set needs a LOGGER")
        return get_loggers(client, output)
    path = f"/admin/loggers/{segment(logger)}"
    if level is None:
        current: dict[str, Any] = client.call("GET", path)
        return render(current, output, lambda data: table(("logger", "level"), [(logger, data.get("level"))]))
    params = {"scope": scope} if scope == "cluster" else None
    changed = client.call("PUT", path, params=params, body={"level": level.upper()})
    if scope == "cluster":
        return f"Set {logger} to {level.upper()} on every worker of the cluster"
    names = ", ".join(changed) if isinstance(changed, list) and changed else logger
    return f"Set {logger} to {level.upper()} on this worker (changed: {names})"
