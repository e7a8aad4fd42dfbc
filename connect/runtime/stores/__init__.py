"""Every store of the runtime: where configs, statuses and source offsets are kept, in both modes.

| what | standalone mode and tests | distributed mode (compacted internal topics, Kafka Connect's formats) |
|---|---|---|
| connector and task configs | `memory_config_store.MemoryConfigStore` | `config_log.ConfigLog` over `config_records` |
| statuses | `memory_status_store.MemoryStatusStore` | `kafka_status_store.KafkaStatusStore` over `status_records` |
| source offsets | `local_offset_store` (memory, or a file) | `kafka_offset_store.KafkaOffsetStore` |

Each Kafka-backed store is one `kafka_log.KafkaLog`: read in full at start, then followed by a daemon
reader thread; writes are acknowledged by all in-sync replicas through an idempotent producer. `topics`
names the three internal topics from the worker's settings, and `connect.runtime.kafka.internal_topics`
creates or checks them. Each store's module docstring states its read-your-writes contract and which
thread calls what.
"""

from connect.runtime.stores.cluster_config import ChangeKind, ClusterConfigState, ConfigChange, RestartRecord
from connect.runtime.stores.config_log import ConfigListener, ConfigLog
from connect.runtime.stores.config_log_state import ConfigLogState
from connect.runtime.stores.kafka_offset_store import KafkaOffsetStore, OffsetRecord
from connect.runtime.stores.kafka_status_store import KafkaStatusStore, StoredStatuses
from connect.runtime.stores.murmur2 import key_partition, murmur2
from connect.runtime.stores.status_records import StatusEntry, TopicStatus
from connect.runtime.stores.topics import internal_topic_specs

__all__ = [
    "ChangeKind",
    "ClusterConfigState",
    "ConfigChange",
    "ConfigListener",
    "ConfigLog",
    "ConfigLogState",
    "KafkaOffsetStore",
    "KafkaStatusStore",
    "OffsetRecord",
    "RestartRecord",
    "StatusEntry",
    "StoredStatuses",
    "TopicStatus",
    "internal_topic_specs",
    "key_partition",
    "murmur2",
]
