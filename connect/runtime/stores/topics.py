"""The three internal topics of a distributed worker, from its settings (the keys of Kafka's `DistributedConfig`).

`config.storage.topic` (exactly 1 partition), `offset.storage.topic` (`offset.storage.partitions`,
default 25) and `status.storage.topic` (`status.storage.partitions`, default 5), each with its
`*.replication.factor` (-1: the broker's default). Other `<store>.storage.*` keys are topic configs
passed through at creation (e.g. `offset.storage.min.insync.replicas=2`), as Kafka does; the cleanup
policy is always compact. Pure; called once by the distributed worker at start.
"""

from __future__ import annotations

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.kafka.internal_topics import InternalTopicSpec

CONFIG_TOPIC = "config.storage.topic"
OFFSET_TOPIC = "offset.storage.topic"
STATUS_TOPIC = "status.storage.topic"

# Keys under `<store>.storage.` that are worker settings, not topic configs.
_WORKER_KEYS = frozenset({"topic", "replication.factor", "partitions", "file.filename", "cleanup.policy"})


def internal_topic_specs(config: WorkerConfig) -> list[InternalTopicSpec]:
    """The config, offsets and status topic specs, in that order; ConfigError if a topic name is missing."""
    return [
        _spec(config, "config", 1),
        _spec(config, "offset", int(config.get("offset.storage.partitions"))),
        _spec(config, "status", int(config.get("status.storage.partitions"))),
    ]


def _spec(config: WorkerConfig, store: str, partitions: int) -> InternalTopicSpec:
    setting = f"{store}.storage.topic"
    name = config.get(setting)
    if not name or not str(name).strip():
        raise ConfigError(f'Missing required configuration "{setting}" which has no default value.')
    prefix = f"{store}.storage."
    topic_configs = {k: v for k, v in config.with_prefix(prefix).items() if k not in _WORKER_KEYS}
    return InternalTopicSpec(
        name=str(name).strip(),
        partitions=partitions,
        replication_factor=int(config.get(f"{store}.storage.replication.factor")),
        setting=setting,
        config=topic_configs,
    )
