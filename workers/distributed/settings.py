"""`DistributedSettings`: what a distributed worker needs beyond the common `WorkerConfig`, typed and checked.

Kafka Connect's distributed keys (`group.id`, the three storage topics, their partitions and replication,
`session.timeout.ms`, `heartbeat.interval.ms`, `rebalance.timeout.ms`, `worker.sync.timeout.ms`,
`exactly.once.source.support`) are parsed by `WorkerConfig`; this module requires the ones Kafka requires
and adds kconnect's own keys for the slots design (`docs/distributed.md`):

- `slots.storage.topic` (default `<group.id>-slots`), `slots.storage.partitions` (64),
  `slots.storage.replication.factor` (default: `config.storage.replication.factor`): the topic whose
  partitions the workers share through consumer-group membership; owning partition s is owning slot s.
- `task.balance.delay.ms` (2000): how long slot ownership must stay unchanged before the balancer moves
  tasks to even out the task count per worker (so that a join or a restart is not chased round by round).

Sources, lowest first: defaults, the properties file, `KCONNECT_*` environment variables (`env.py`).
Built once by the process entry point and passed in.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from connect.api.config import ConfigDef, ConfigType, Importance, Range
from connect.api.errors import ConfigError
from connect.runtime.worker_config import WorkerConfig
from workers.distributed import env
from workers.standalone.properties import read_properties

log = logging.getLogger(__name__)

GROUP_ID = "group.id"
CONFIG_TOPIC = "config.storage.topic"
OFFSET_TOPIC = "offset.storage.topic"
STATUS_TOPIC = "status.storage.topic"
SLOTS_TOPIC = "slots.storage.topic"
SLOTS_PARTITIONS = "slots.storage.partitions"
SLOTS_REPLICATION = "slots.storage.replication.factor"
BALANCE_DELAY_MS = "task.balance.delay.ms"

DEFAULT_SLOTS = 64
DEFAULT_BALANCE_DELAY_MS = 2000

_REQUIRED = (GROUP_ID, CONFIG_TOPIC, OFFSET_TOPIC, STATUS_TOPIC)


def slots_config_def() -> ConfigDef:
    """kconnect's distributed keys that Kafka Connect does not have."""
    return (
        ConfigDef()
        .define(SLOTS_TOPIC, ConfigType.STRING, None, None, Importance.MEDIUM, "The slots topic.")
        .define(
            SLOTS_PARTITIONS,
            ConfigType.INT,
            DEFAULT_SLOTS,
            Range.between(1, 10000),
            Importance.LOW,
            "Slots: the unit of work ownership.",
        )
        .define(SLOTS_REPLICATION, ConfigType.SHORT, None, None, Importance.LOW, "Replicas of the slots topic.")
        .define(
            BALANCE_DELAY_MS,
            ConfigType.LONG,
            DEFAULT_BALANCE_DELAY_MS,
            Range.at_least(0),
            Importance.LOW,
            "Quiet time before tasks move for balance.",
        )
    )


@dataclass(frozen=True)
class TopicSettings:
    name: str
    partitions: int
    replication_factor: int


@dataclass(frozen=True)
class DistributedSettings:
    worker: WorkerConfig
    group_id: str
    config_topic: TopicSettings
    offset_topic: TopicSettings
    status_topic: TopicSettings
    slots_topic: TopicSettings
    session_timeout_ms: int
    heartbeat_interval_ms: int
    rebalance_timeout_ms: int
    worker_sync_timeout_ms: int
    balance_delay_ms: int
    exactly_once_source: str  # disabled | preparing | enabled
    from_env: tuple[str, ...] = ()

    @classmethod
    def from_props(cls, props: Mapping[str, str], from_env: tuple[str, ...] = ()) -> DistributedSettings:
        """Parse and check; ConfigError names the first bad or missing key."""
        own_keys = slots_config_def()
        own = own_keys.parse({k: v for k, v in props.items() if k in own_keys.keys})
        worker = WorkerConfig.from_props({k: v for k, v in props.items() if k not in own_keys.keys})
        for key in _REQUIRED:
            if not worker.get(key):
                raise ConfigError(f'Missing required configuration "{key}" which has no default value.')
        group_id = str(worker.get(GROUP_ID))
        session = int(worker.get("session.timeout.ms"))
        heartbeat = int(worker.get("heartbeat.interval.ms"))
        if heartbeat <= 0 or heartbeat >= session:
            raise ConfigError(
                f"Invalid value {heartbeat} for configuration heartbeat.interval.ms: "
                f"must be positive and below session.timeout.ms ({session})"
            )
        config_rf = int(worker.get("config.storage.replication.factor"))
        topics = {
            "config": TopicSettings(str(worker.get(CONFIG_TOPIC)), 1, config_rf),
            "offset": TopicSettings(
                str(worker.get(OFFSET_TOPIC)),
                int(worker.get("offset.storage.partitions")),
                int(worker.get("offset.storage.replication.factor")),
            ),
            "status": TopicSettings(
                str(worker.get(STATUS_TOPIC)),
                int(worker.get("status.storage.partitions")),
                int(worker.get("status.storage.replication.factor")),
            ),
            "slots": TopicSettings(
                str(own[SLOTS_TOPIC] or f"{group_id}-slots"),
                int(own[SLOTS_PARTITIONS]),
                int(own[SLOTS_REPLICATION] if own[SLOTS_REPLICATION] is not None else config_rf),
            ),
        }
        names = [t.name for t in topics.values()]
        if len(set(names)) != len(names):
            raise ConfigError(
                f"The config, offset, status and slots topics must be four different topics, got {', '.join(names)}"
            )
        return cls(
            worker=worker,
            group_id=group_id,
            config_topic=topics["config"],
            offset_topic=topics["offset"],
            status_topic=topics["status"],
            slots_topic=topics["slots"],
            session_timeout_ms=session,
            heartbeat_interval_ms=heartbeat,
            rebalance_timeout_ms=int(worker.get("rebalance.timeout.ms")),
            worker_sync_timeout_ms=int(worker.get("worker.sync.timeout.ms")),
            balance_delay_ms=int(own[BALANCE_DELAY_MS]),
            exactly_once_source=str(worker.get("exactly.once.source.support")).lower(),
            from_env=from_env,
        )

    @classmethod
    def load(cls, path: Path | None, environ: Mapping[str, str]) -> DistributedSettings:
        """The properties file at `path` (optional) overlaid with `KCONNECT_*` variables from `environ`.

        OSError if the file cannot be read; ConfigError if the result is not a valid configuration.
        """
        file_props = read_properties(path) if path is not None else {}
        props, from_env = env.merge(file_props, environ)
        if from_env:
            log.info("Worker settings from the environment: %s", ", ".join(from_env))
        return cls.from_props(props, tuple(from_env))

    @property
    def exactly_once_enabled(self) -> bool:
        return self.exactly_once_source == "enabled"

    @property
    def membership_group(self) -> str:
        """The consumer group the workers join: `group.id` itself, as Kafka Connect's workers do."""
        return self.group_id

    def transactional_id(self, connector: str, task: int) -> str:
        """KIP-618's per-task transactional id: `<group.id>-<connector>-<task>`."""
        return f"{self.group_id}-{connector}-{task}"
