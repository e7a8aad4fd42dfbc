"""The DR runbook against a dedicated MirrorMaker (`kconnect mirror`): its flows' state and lag, and a consumer
group's offsets translated to the target, printed or written to the group there for a failover.

`--url` is the MirrorMaker process's REST URL (not a flow's, `/<source>/<target>`). A flow is named
`SOURCE->TARGET`; without `--flow`, the only flow that mirrors topics is meant.
"""

from __future__ import annotations

from typing import Any

from ctl.client import ConnectClient, segment
from ctl.errors import UsageError
from ctl.output import render, table


def mirror_status(client: ConnectClient, output: str) -> str:
    """`GET /flows`: a line per flow, then a line per mirrored partition with its lag."""
    flows: dict[str, Any] = client.call("GET", "/flows")
    return render(flows, output, _status_table)


def _status_table(flows: dict[str, Any]) -> str:
    rows = []
    for name, flow in flows.items():
        states = [
            f"{connector.removeprefix('Mirror').removesuffix('Connector')}: {info['state']}"
            for connector, info in flow.get("connectors", {}).items()
        ]
        rows.append(
            [
                name,
                "yes" if flow.get("enabled") else "heartbeats only",
                flow.get("lag", ""),
                _seconds(flow.get("heartbeat_age_ms")),
                _seconds(flow.get("checkpoint_age_ms")),
                ", ".join(states) or flow.get("state", ""),
            ]
        )
    text = table(["flow", "mirrors", "lag", "heartbeat age", "last checkpoint", "connectors"], rows)
    partitions = [
        [name, p["topic"], p["partition"], p["lag"]] for name, flow in flows.items() for p in flow.get("partitions", [])
    ]
    if partitions:
        text += "\n\n" + table(["flow", "topic", "partition", "lag"], partitions)
    return text


def _seconds(age_ms: int | None) -> str:
    return "" if age_ms is None else f"{age_ms / 1000:.1f} s"


def mirror_translate(client: ConnectClient, group: str, flow: str | None, *, apply: bool, output: str) -> str:
    """`GET` (or, with `apply`, `POST`) `/flows/{source}/{target}/groups/{group}/offsets`."""
    source, target = _flow(client, flow)
    path = f"/flows/{segment(source)}/{segment(target)}/groups/{segment(group)}/offsets"
    body: dict[str, Any] = client.call("POST" if apply else "GET", path)
    rows = [[o["topic"], o["partition"], o["offset"], o["upstream_offset"]] for o in body["offsets"]]
    done = f"\n\nWrote these offsets to consumer group {group} on {target}." if apply else ""
    return render(body, output, lambda _: table(["topic", "partition", "offset", "upstream offset"], rows) + done)


def _flow(client: ConnectClient, flow: str | None) -> tuple[str, str]:
    if flow is not None:
        source, arrow, target = flow.partition("->")
        if not arrow or not source or not target:
            raise UsageError(f"A flow is written SOURCE->TARGET, got {flow}")
        return source, target
    flows: dict[str, Any] = client.call("GET", "/flows")
    mirroring = [name for name, state in flows.items() if state.get("enabled")]
    if len(mirroring) != 1:
        raise UsageError(f"Name the flow with --flow (this MirrorMaker runs {', '.join(flows) or 'none'})")
    source, _, target = mirroring[0].partition("->")
    return source, target
