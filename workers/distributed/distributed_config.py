"""`distributed_config_def()`: the worker's config definition extended with the keys only distributed mode
reads, as Kafka's `DistributedConfig` extends its `WorkerConfig`.

Kafka Connect's group membership keys (`session.timeout.ms`, `heartbeat.interval.ms`,
`rebalance.timeout.ms`, `worker.sync.timeout.ms`, `scheduled.rebalance.max.delay.ms`) and kconnect's own
for its slots design (`docs/distributed.md`). The distributed keys the runtime reads as well (`group.id`,
`exactly.once.source.support`, the three storage topics with their partitions and replication) stay in
`connect.runtime.config.worker_config`, beside their readers. `DistributedSettings` parses with this definition,
so these keys are type-checked, defaulted and not reported as unknown; standalone mode does not know them.
"""

from __future__ import annotations

from connect.api.config import ConfigDef, ConfigType, Importance, Range
from connect.runtime.config.worker_config import worker_config_def

# Kafka Connect's group membership keys.
SESSION_TIMEOUT_MS = "session.timeout.ms"
HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms"
REBALANCE_TIMEOUT_MS = "rebalance.timeout.ms"
WORKER_SYNC_TIMEOUT_MS = "worker.sync.timeout.ms"
SCHEDULED_REBALANCE_MAX_DELAY_MS = "scheduled.rebalance.max.delay.ms"
CLIENT_ID = "client.id"
# kconnect's own keys for slots over consumer-group membership.
SLOTS_STORAGE_TOPIC = "slots.storage.topic"
SLOTS_STORAGE_PARTITIONS = "slots.storage.partitions"
SLOTS_STORAGE_REPLICATION_FACTOR = "slots.storage.replication.factor"
TASK_BALANCE_DELAY_MS = "task.balance.delay.ms"
LIVENESS_PORT = "liveness.port"
LIVENESS_TIMEOUT_MS = "liveness.timeout.ms"
DEFAULT_LIVENESS_TIMEOUT_MS = 4000
DEFAULT_SLOTS = 64
DEFAULT_TASK_BALANCE_DELAY_MS = 2000


def distributed_config_def() -> ConfigDef:
    """`worker_config_def()` plus distributed mode's own keys, with Kafka Connect's types and defaults."""
    d = worker_config_def()
    d.define(SESSION_TIMEOUT_MS, ConfigType.INT, 10000, None, Importance.HIGH, "Group session timeout.")
    d.define(HEARTBEAT_INTERVAL_MS, ConfigType.INT, 3000, None, Importance.HIGH, "Group heartbeat interval.")
    d.define(REBALANCE_TIMEOUT_MS, ConfigType.INT, 60000, None, Importance.HIGH, "Rebalance timeout.")
    d.define(WORKER_SYNC_TIMEOUT_MS, ConfigType.INT, 3000, None, Importance.MEDIUM, "Config sync timeout.")
    d.define(SCHEDULED_REBALANCE_MAX_DELAY_MS, ConfigType.INT, 300000, None, Importance.LOW, "Rebalance delay.")
    d.define(
        CLIENT_ID,
        ConfigType.STRING,
        "kconnect-worker",
        None,
        Importance.LOW,
        "Prefix of the membership client id, followed by the worker id (dedicated MirrorMaker: the flow).",
    )
    d.define(SLOTS_STORAGE_TOPIC, ConfigType.STRING, None, None, Importance.MEDIUM, "Slots topic (<group.id>-slots).")
    d.define(
        SLOTS_STORAGE_PARTITIONS,
        ConfigType.INT,
        DEFAULT_SLOTS,
        Range.between(1, 10000),
        Importance.LOW,
        "Slots: the unit of work ownership.",
    )
    d.define(
        SLOTS_STORAGE_REPLICATION_FACTOR,
        ConfigType.SHORT,
        None,
        None,
        Importance.LOW,
        "Replicas of the slots topic (default: config.storage.replication.factor).",
    )
    d.define(
        TASK_BALANCE_DELAY_MS,
        ConfigType.LONG,
        DEFAULT_TASK_BALANCE_DELAY_MS,
        Range.at_least(0),
        Importance.LOW,
        "Quiet time before tasks move for balance.",
    )
    d.define(
        LIVENESS_PORT,
        ConfigType.INT,
        0,
        Range.between(0, 65535),
        Importance.LOW,
        "TCP port on which peers watch this worker's process (0: one the system picks).",
    )
    d.define(
        LIVENESS_TIMEOUT_MS,
        ConfigType.INT,
        DEFAULT_LIVENESS_TIMEOUT_MS,
        Range.at_least(0),
        Importance.LOW,
        "A peer not heard from this long is taken for hung and evicted (0: left to its session timeout).",
    )
    return d
