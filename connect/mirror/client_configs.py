"""The Kafka client settings of a mirror connector's own clients, built from its config as Java's
`MirrorConnectorConfig` builds them (Kafka's key names; the runtime's client factory translates them).

For a client of cluster `side` ("source" or "target") and kind `client` ("consumer", "producer", "admin"),
later layers win:

1. `<side>.cluster.*`, only the connection keys (`bootstrap.servers`, `security.protocol`, `ssl.*`, `sasl.*`):
   a flow's two clusters usually differ in exactly these;
2. `<client>.*`, for the clients of both clusters;
3. `<side>.<client>.*`.

Consumers never commit (`enable.auto.commit=false`: MirrorMaker keeps its positions in Connect's offsets) and
start at the earliest record unless told otherwise. Every client id says whose it is:
`[<user's client.id>|]<source>-><target>|<connector>[-<task>]|<role>`, as Java's since Kafka 3.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Side = Literal["source", "target"]
Client = Literal["consumer", "producer", "admin"]

_CONNECTION_KEYS = ("bootstrap.servers", "security.protocol")
_CONNECTION_PREFIXES = ("ssl.", "sasl.")


def _with_prefix(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {key[len(prefix) :]: value for key, value in props.items() if key.startswith(prefix)}


def _is_connection_key(key: str) -> bool:
    return key in _CONNECTION_KEYS or key.startswith(_CONNECTION_PREFIXES)


def client_config(
    props: Mapping[str, str], side: Side, client: Client, role: str, task_index: int | None = None
) -> dict[str, str]:
    """The Kafka-named settings of the connector's (or task's, with `task_index`) `client` of cluster `side`."""
    cluster = {k: v for k, v in _with_prefix(props, f"{side}.cluster.").items() if _is_connection_key(k)}
    settings = {**cluster, **_with_prefix(props, f"{client}."), **_with_prefix(props, f"{side}.{client}.")}
    if client == "consumer":
        settings["enable.auto.commit"] = "false"
        settings.setdefault("auto.offset.reset", "earliest")
    label = f"{props.get('source.cluster.alias')}->{props.get('target.cluster.alias', 'target')}|{props.get('name')}"
    if task_index is not None:
        label += f"-{task_index}"
    user_client_id = settings.get("client.id")
    settings["client.id"] = f"{user_client_id}|{label}|{role}" if user_client_id else f"{label}|{role}"
    return settings
