"""How mirrored topics are named, and how a name tells where a topic came from (Java's `ReplicationPolicy`).

The policy must be the same on all three connectors of a flow and on every cluster of a topology, since the
checkpoint connector and `MirrorClient` parse names the source connector made. Two built-ins, as in Kafka:

- `DefaultReplicationPolicy`: `orders` from cluster `A` is `A.orders` downstream; any topic containing the
  separator reads as remote, which is what stops `A -> B -> A` cycles (and also why a local topic named
  `backup.sales` is never mirrored by a flow into `backup`).
- `IdentityReplicationPolicy`: names unchanged (one-way migrations); it cannot see cycles, so an
  active/active topology with it loops. Names ending in `heartbeats` keep the default rules, so the
  heartbeats of each upstream cluster stay apart.

User policies are plug-ins: a subclass of `ReplicationPolicy` named by `replication.policy.class`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping

from connect.api.errors import ConfigError

HEARTBEATS_TOPIC = "heartbeats"
SEPARATOR_CONFIG = "replication.policy.separator"
INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG = "replication.policy.internal.topic.separator.enabled"
SOURCE_CLUSTER_ALIAS_CONFIG = "source.cluster.alias"
DEFAULT_SEPARATOR = "."
POLICY_CLASS_CONFIG = "replication.policy.class"
DEFAULT_POLICY_CLASS = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"


class ReplicationPolicy(ABC):
    """Names of remote and internal topics. `configure` receives the connector's (or client's) config first."""

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read the keys this policy knows (e.g. `replication.policy.separator`); unknown keys are ignored."""

    @abstractmethod
    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        """The name `topic` of cluster `source_cluster_alias` gets downstream."""

    @abstractmethod
    def topic_source(self, topic: str) -> str | None:
        """The alias of the cluster `topic` was mirrored from; None for a local topic."""

    @abstractmethod
    def upstream_topic(self, topic: str) -> str | None:
        """The name `topic` has one hop upstream; None for a local topic."""

    def original_topic(self, topic: str) -> str:
        """The name `topic` has where it was first written, following `upstream_topic` hop by hop."""
        upstream = self.upstream_topic(topic)
        if upstream is None or upstream == topic:
            return topic
        return self.original_topic(upstream)

    def heartbeats_topic(self) -> str:
        return HEARTBEATS_TOPIC

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        """The offset-syncs topic of the flow whose *other* cluster is `cluster_alias`."""
        return f"mm2-offset-syncs.{cluster_alias}.internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        """The checkpoints topic, on the target, of the flow from `cluster_alias`."""
        return f"{cluster_alias}.checkpoints.internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        """`heartbeats`, and its mirrors at any depth (`A.heartbeats`, `B.A.heartbeats`)."""
        return self.original_topic(topic) == self.heartbeats_topic()

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(".checkpoints.internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's own topics (Kafka 4.0's rule: `mm2…internal`, and checkpoints topics)."""
        return (topic.startswith("mm2") and topic.endswith(".internal")) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        """Never mirrored: MirrorMaker's topics and Kafka's own (`__consumer_offsets`, `.`-prefixed)."""
        return self.is_mm2_internal_topic(topic) or topic.startswith("__") or topic.startswith(".")


class DefaultReplicationPolicy(ReplicationPolicy):
    """`<source alias><separator><topic>`; the separator (`.` by default) is `replication.policy.separator`.

    Internal topic names use the separator too, unless `replication.policy.internal.topic.separator.enabled`
    is false (then they keep `.`, as before Kafka 3.5.2)."""

    def __init__(self) -> None:
        self.separator = DEFAULT_SEPARATOR
        self.internal_separator = DEFAULT_SEPARATOR

    def configure(self, configs: Mapping[str, str]) -> None:
        self.separator = configs.get(SEPARATOR_CONFIG, DEFAULT_SEPARATOR)
        internal_enabled = configs.get(INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG, "true").strip().lower() != "false"
        self.internal_separator = self.separator if internal_enabled else DEFAULT_SEPARATOR

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}{self.separator}{topic}"

    def topic_source(self, topic: str) -> str | None:
        parts = _java_split(topic, self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator) :]

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        sep = self.internal_separator
        return f"mm2-offset-syncs{sep}{cluster_alias}{sep}internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        sep = self.internal_separator
        return f"{cluster_alias}{sep}checkpoints{sep}internal"

    def is_checkpoints_topic(self, topic: str) -> bool:
        sep = self.internal_separator
        return topic.endswith(f"{sep}checkpoints{sep}internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        internal_suffix = f"{self.internal_separator}internal"
        return (topic.startswith("mm2") and topic.endswith(internal_suffix)) or self.is_checkpoints_topic(topic)


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Topics keep their names downstream; `source.cluster.alias` says where every non-heartbeats topic is from.

    Heartbeats topics follow the default rules, so `A.heartbeats` still appears and the chain of upstream
    clusters can be read from them."""

    def __init__(self) -> None:
        super().__init__()
        self.source_cluster_alias: str | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        super().configure(configs)
        self.source_cluster_alias = configs.get(SOURCE_CLUSTER_ALIAS_CONFIG)

    def _follows_default(self, topic: str) -> bool:
        return topic.endswith(HEARTBEATS_TOPIC)

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        if self._follows_default(topic):
            return super().format_remote_topic(source_cluster_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._follows_default(topic):
            return super().topic_source(topic)
        return self.source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._follows_default(topic):
            return super().upstream_topic(topic)
        return topic


def _java_split(text: str, separator: str) -> list[str]:
    """Java's `String.split(Pattern.quote(separator))`: trailing empty parts are dropped."""
    parts = re.split(re.escape(separator), text) if separator else [text]
    while parts and parts[-1] == "":
        parts.pop()
    return parts


BUILT_IN_POLICIES: dict[str, type[ReplicationPolicy]] = {
    "org.apache.kafka.connect.mirror.DefaultReplicationPolicy": DefaultReplicationPolicy,
    "org.apache.kafka.connect.mirror.IdentityReplicationPolicy": IdentityReplicationPolicy,
    "DefaultReplicationPolicy": DefaultReplicationPolicy,
    "IdentityReplicationPolicy": IdentityReplicationPolicy,
}
POLICY_ENTRY_POINT_GROUP = "kconnect.replication_policies"


def load_replication_policy(configs: Mapping[str, str]) -> ReplicationPolicy:
    """The configured `replication.policy.class`, configured: a built-in by Java's or its short name, a
    user's policy by entry point name (group `kconnect.replication_policies`) or by `module:Class` /
    `module.Class`. A name that resolves to nothing, or to something else than a policy, is a ConfigError."""
    name = configs.get(POLICY_CLASS_CONFIG, DEFAULT_POLICY_CLASS).strip()
    policy_class = BUILT_IN_POLICIES.get(name) or _user_policy(name)
    policy = policy_class()
    policy.configure(configs)
    return policy


def _user_policy(name: str) -> type[ReplicationPolicy]:
    found: object = None
    for entry_point in importlib.metadata.entry_points(group=POLICY_ENTRY_POINT_GROUP):
        if entry_point.name == name:
            found = entry_point.load()
    if found is None:
        module_name, _, attribute = name.replace(":", ".").rpartition(".")
        try:
            found = getattr(importlib.import_module(module_name), attribute) if module_name else None
        except (ImportError, AttributeError):
            found = None
    if not (isinstance(found, type) and issubclass(found, ReplicationPolicy)):
        raise ConfigError(f"{POLICY_CLASS_CONFIG}: {name} is not a replication policy kconnect can find")
    return found
