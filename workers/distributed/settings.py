"""`DistributedSettings`: what a distributed worker needs beyond the common `WorkerConfig`, typed and checked.

Every key is defined (with Kafka Connect's types and defaults) and parsed by `WorkerConfig`, with
`distributed_config_def()`: Kafka Connect's distributed keys (`group.id`, the three storage topics, their
partitions and replication, `session.timeout.ms`, `heartbeat.interval.ms`, `rebalance.timeout.ms`,
`worker.sync.timeout.ms`, `exactly.once.source.support`) and kconnect's own for the slots design
(`docs/distributed.md`):

- `slots.storage.topic` (default `<group.id>-slots`), `slots.storage.partitions` (64),
  `slots.storage.replication.factor` (default: `config.storage.replication.factor`): the topic whose
  partitions the workers share through consumer-group membership; owning partition s is owning slot s.
- `task.balance.delay.ms` (2000): how long slot ownership must stay unchanged before the balancer moves
  tasks to even out the task count per worker (so that a join or a restart is not chased round by round).

This module requires the keys Kafka requires, checks how they fit together and resolves the defaults
that depend on other keys. Sources, lowest first: defaults, the properties file, `KCONNECT_*`
environment variables (`workers.common.worker_props`). Built once by the process entry point and
passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import (
    CONFIG_STORAGE_REPLICATION_FACTOR,
    CONFIG_STORAGE_TOPIC,
    EXACTLY_ONCE_SOURCE_SUPPORT,
    GROUP_ID,
    OFFSET_STORAGE_PARTITIONS,
    OFFSET_STORAGE_REPLICATION_FACTOR,
    OFFSET_STORAGE_TOPIC,
    STATUS_STORAGE_PARTITIONS,
    STATUS_STORAGE_REPLICATION_FACTOR,
    STATUS_STORAGE_TOPIC,
    WorkerConfig,
)
from workers.common.worker_props import load_worker_props
from workers.distributed.distributed_config import (
    HEARTBEAT_INTERVAL_MS,
    LIVENESS_PORT,
    LIVENESS_TIMEOUT_MS,
    REBALANCE_TIMEOUT_MS,
    SESSION_TIMEOUT_MS,
    SLOTS_STORAGE_PARTITIONS,
    SLOTS_STORAGE_REPLICATION_FACTOR,
    SLOTS_STORAGE_TOPIC,
    TASK_BALANCE_DELAY_MS,
    WORKER_SYNC_TIMEOUT_MS,
    distributed_config_def,
)

_REQUIRED = (GROUP_ID, CONFIG_STORAGE_TOPIC, OFFSET_STORAGE_TOPIC, STATUS_STORAGE_TOPIC)


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
    liveness_port: int = 0
    liveness_timeout_ms: int = 0  # 0: a hung peer is left to its session timeout
    from_env: tuple[str, ...] = ()

    @classmethod
    def from_props(cls, props: Mapping[str, str], from_env: tuple[str, ...] = ()) -> DistributedSettings:
        """Parse and check; ConfigError names the first bad or missing key."""
        worker = WorkerConfig.from_props(props, distributed_config_def())
        for key in _REQUIRED:
            if not worker.get(key):
                raise ConfigError(f'Missing required configuration "{key}" which has no default value.')
        group_id = str(worker.get(GROUP_ID))
        session = int(worker.get(SESSION_TIMEOUT_MS))
        heartbeat = int(worker.get(HEARTBEAT_INTERVAL_MS))
        if heartbeat <= 0 or heartbeat >= session:
            raise ConfigError(
                f"Invalid value {heartbeat} for configuration heartbeat.interval.ms: "
                f"must be positive and below session.timeout.ms ({session})"
            )
        config_rf = int(worker.get(CONFIG_STORAGE_REPLICATION_FACTOR))
        slots_rf = worker.get(SLOTS_STORAGE_REPLICATION_FACTOR)
        topics = {
            "config": TopicSettings(str(worker.get(CONFIG_STORAGE_TOPIC)), 1, config_rf),
            "offset": TopicSettings(
                str(worker.get(OFFSET_STORAGE_TOPIC)),
                int(worker.get(OFFSET_STORAGE_PARTITIONS)),
                int(worker.get(OFFSET_STORAGE_REPLICATION_FACTOR)),
            ),
            "status": TopicSettings(
                str(worker.get(STATUS_STORAGE_TOPIC)),
                int(worker.get(STATUS_STORAGE_PARTITIONS)),
                int(worker.get(STATUS_STORAGE_REPLICATION_FACTOR)),
            ),
            "slots": TopicSettings(
                str(worker.get(SLOTS_STORAGE_TOPIC) or f"{group_id}-slots"),
                int(worker.get(SLOTS_STORAGE_PARTITIONS)),
                int(slots_rf if slots_rf is not None else config_rf),
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
            rebalance_timeout_ms=int(worker.get(REBALANCE_TIMEOUT_MS)),
            worker_sync_timeout_ms=int(worker.get(WORKER_SYNC_TIMEOUT_MS)),
            balance_delay_ms=int(worker.get(TASK_BALANCE_DELAY_MS)),
            exactly_once_source=str(worker.get(EXACTLY_ONCE_SOURCE_SUPPORT)).lower(),
            liveness_port=int(worker.get(LIVENESS_PORT)),
            liveness_timeout_ms=int(worker.get(LIVENESS_TIMEOUT_MS)),
            from_env=from_env,
        )

    @classmethod
    def load(cls, path: Path | None, environ: Mapping[str, str]) -> DistributedSettings:
        """The properties file at `path` (optional) overlaid with `KCONNECT_*` variables from `environ`.

        OSError if the file cannot be read; ConfigError if the result is not a valid configuration.
        """
        loaded = load_worker_props(path, environ)
        return cls.from_props(loaded.props, loaded.from_env)

    @property
    def silence_limit_s(self) -> float:
        """How long a peer may go unheard before it is taken for hung (`liveness.py`); inf: never."""
        return self.liveness_timeout_ms / 1000 if self.liveness_timeout_ms > 0 else float("inf")

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
