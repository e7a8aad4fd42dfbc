"""What a `connect-mirror-maker` file (`mm2.properties`) means: which flows run, each flow's worker config and
its connectors' configs, derived as Java's `MirrorMakerConfig` derives them.

- `clusters` names the aliases; `<alias>.<key>` configures a cluster (`A.bootstrap.servers`,
  `A.consumer.isolation.level`, worker keys such as `A.offset.flush.interval.ms`); top-level connection keys
  (`bootstrap.servers`, `security.protocol`, `ssl.*`, `sasl.*`) fill what a cluster leaves out.
- `<source>-><target>.<key>` configures one flow's connectors, unfiltered (`A->B.enabled=true`,
  `A->B.topics=...`). Top-level keys are defaults for every flow's connectors, but only those the three
  connectors (or Connect's connector config) declare: others are dropped, as in Java.
- A flow gets a worker (Java's herder) when it is enabled, or when it emits heartbeats (on by default): enabling
  only `A->B` also runs `B->A`, whose heartbeat connector writes the `heartbeats` that `A->B` mirrors.
- Each flow's worker belongs to the target cluster: group `<source>-mm2`, internal topics
  `mm2-{configs,offsets,status}.<source>.internal`, ByteArrayConverter for keys, values and headers, unless set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from connect.api.errors import ConfigError
from connect.mirror.config import CHECKPOINT_CONFIG_DEF, HEARTBEAT_CONFIG_DEF, SOURCE_CONFIG_DEF
from connect.mirror.filters import list_items

CLUSTERS_CONFIG = "clusters"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
CONNECTOR_CLASSES = ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")
JAVA_PACKAGE = "org.apache.kafka.connect.mirror."

# Kafka's ConnectorConfig keys, which MirrorMaker's connector configs extend (not SourceConnectorConfig's:
# `exactly.once.support` and `transaction.boundary` go under `<source>-><target>.`).
_CONNECT_CONNECTOR_KEYS = frozenset(
    {
        "name",
        "connector.class",
        "tasks.max",
        "tasks.max.enforce",
        "key.converter",
        "value.converter",
        "header.converter",
        "config.action.reload",
        "transforms",
        "predicates",
        "errors.retry.timeout",
        "errors.retry.delay.max.ms",
        "errors.tolerance",
        "errors.log.enable",
        "errors.log.include.messages",
    }
)
_CONNECTOR_KEYS = _CONNECT_CONNECTOR_KEYS | {
    name for config in (SOURCE_CONFIG_DEF, CHECKPOINT_CONFIG_DEF, HEARTBEAT_CONFIG_DEF) for name in config.names()
}
_CLIENT_ROLE = re.compile(r"^(consumer|producer|admin)")
_WORKER_PREFIXES = (
    "offset.storage",
    "config.storage",
    "status.storage",
    "key.converter",
    "value.converter",
    "header.converter",
    "task",
    "worker",
    "replication.policy",
    "config.providers",
)


def _is_connection_key(key: str) -> bool:
    return key in ("bootstrap.servers", "security.protocol") or key.startswith(("ssl.", "sasl."))


@dataclass(frozen=True)
class Flow:
    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


class MirrorMakerConfig:
    def __init__(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        self.clusters = list_items(props.get(CLUSTERS_CONFIG, ""))
        if not self.clusters:
            raise ConfigError(f"{CLUSTERS_CONFIG} must name the clusters of the topology")

    def _with_prefix(self, prefix: str, strip: bool = True) -> dict[str, str]:
        cut = len(prefix) if strip else 0
        return {k[cut:]: v for k, v in self._props.items() if k.startswith(prefix)}

    def top_level(self, prefixes: tuple[str, ...]) -> dict[str, str]:
        """The keys that start with one of `prefixes`, as written (the process's own settings, such as its
        REST listener's)."""
        return {k: v for k, v in self._props.items() if k.startswith(prefixes)}

    def _bool(self, key: str, default: bool) -> bool:
        value = self._props.get(key)
        return default if value is None else value.strip().lower() == "true"

    def flows(self, targets: Iterable[str] | None = None) -> list[Flow]:
        """The flows that run (Java's `clusterPairs`), limited to those into `targets` when given."""
        wanted = None if targets is None else set(targets)
        heartbeats = self._bool("emit.heartbeats.enabled", True)
        flows = [
            Flow(source, target)
            for source in self.clusters
            for target in self.clusters
            if source != target
            and (wanted is None or target in wanted)
            and (
                self._bool(f"{source}->{target}.enabled", False)
                or self._bool(f"{source}->{target}.emit.heartbeats.enabled", heartbeats)
            )
        ]
        if wanted is not None and not flows:
            raise ConfigError(f"No flow into {', '.join(sorted(wanted))}: check --clusters and {CLUSTERS_CONFIG}")
        return flows

    def cluster_props(self, alias: str) -> dict[str, str]:
        """`<alias>.*` with its connection keys copied to the producer, consumer and admin forms; top-level
        connection keys fill the gaps."""
        props = self._with_prefix(f"{alias}.")
        for key, value in list(props.items()):
            if _is_connection_key(key):
                for client in ("producer", "consumer", "admin"):
                    props.setdefault(f"{client}.{key}", value)
        for key, value in self._props.items():
            if _is_connection_key(key):
                for client in ("producer", "consumer", "admin"):
                    props.setdefault(f"{client}.{key}", value)
                props.setdefault(key, value)
        return props

    def worker_config(self, flow: Flow) -> dict[str, str]:
        """The distributed worker config of `flow`'s worker, on the target cluster."""
        props = self.cluster_props(flow.target)
        for prefix in _WORKER_PREFIXES:
            props.update(self._with_prefix(prefix, strip=False))
        props.setdefault("client.id", str(flow))
        props.setdefault("group.id", f"{flow.source}-mm2")
        props.setdefault("offset.storage.topic", f"mm2-offsets.{flow.source}.internal")
        props.setdefault("status.storage.topic", f"mm2-status.{flow.source}.internal")
        props.setdefault("config.storage.topic", f"mm2-configs.{flow.source}.internal")
        for converter in ("key.converter", "value.converter", "header.converter"):
            props.setdefault(converter, BYTE_ARRAY_CONVERTER)
        return props

    def connector_config(self, flow: Flow, connector_class: str) -> dict[str, str]:
        """The config `flow`'s worker gives its `connector_class` connector (a simple class name)."""
        props = {k: v for k, v in self._props.items() if k in _CONNECTOR_KEYS}
        props.update(self._with_prefix("config.providers", strip=False))
        props.update(self._with_prefix("replication.policy", strip=False))
        for side, alias in (("source", flow.source), ("target", flow.target)):
            for key, value in self.cluster_props(alias).items():
                props[f"{side}.{key}" if _CLIENT_ROLE.match(key) else f"{side}.cluster.{key}"] = value
        props.setdefault("name", connector_class)
        props.setdefault("connector.class", JAVA_PACKAGE + connector_class)
        props.setdefault("source.cluster.alias", flow.source)
        props.setdefault("target.cluster.alias", flow.target)
        props.update(self._with_prefix(f"{flow}."))
        props.setdefault("enabled", "false")
        return props
