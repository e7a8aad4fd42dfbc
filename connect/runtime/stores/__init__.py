"""Distributed mode's stores: compacted internal topics in Kafka Connect's record formats.

Each store is one `connect.runtime.kafka_log.KafkaLog` (read in full at start, then followed by a
daemon reader thread; writes acknowledged by all in-sync replicas through an idempotent producer).

Interface (final; the distributed herder codes against it)::

    # connect.runtime.kafka_log
    class KafkaLog:
        def __init__(self, topic: str, clients: KafkaClients, *, on_record: Callable[[bytes | None, bytes | None,
                     int, int], None], name: str, producer_overrides: Mapping[str, str] | None = None,
                     consumer_overrides: Mapping[str, str] | None = None) -> None  # on_record(key, value, part, offset)
        partitions: int                                     # once started
        def start(self, timeout: float) -> None             # returns after reading to the end
        def stop(self, timeout: float = 30.0) -> None
        def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[tuple[int, int]]
        def read_to_end(self, timeout: float) -> None       # RetriableError on timeout
        def wait_until_read(self, partition: int, offset: int, timeout: float) -> None
        def positions(self) -> dict[int, int]
    @dataclass(frozen=True)
    class InternalTopicSpec: name: str; partitions: int; replication_factor: int = -1; setting: str = "";
                             config: Mapping[str, str] = {}       # partitions -1: broker default, not verified
    def ensure_internal_topics(clients: KafkaClients, specs: Sequence[InternalTopicSpec | TopicSpec],
                               timeout: float = 30.0) -> set[str]   # names created; ConfigError on mismatch
        # CHANGED from the brief: takes the KafkaClients (it needs describe_configs, which KafkaAdmin lacks)

    # connect.runtime.stores
    def internal_topic_specs(config: WorkerConfig) -> list[InternalTopicSpec]   # [config, offsets, status]

    class ConfigLog:
        def __init__(self, topic: str, clients: KafkaClients, *, name: str = "config", producer_overrides=None,
                     consumer_overrides=None) -> None
        def add_listener(self, listener: Callable[[ConfigChange], None]) -> None  # reader thread, after start
        def start(self, timeout: float) -> None ; def stop(self) -> None
        def read_to_end(self, timeout: float) -> None
        def snapshot(self) -> ClusterConfigState
        # every put_* returns the config-log offset of its last record, once acknowledged AND applied locally
        def put_connector_config(self, name, config: Mapping[str, str], target_state: TargetState | None = None,
                                 *, timeout=30.0) -> int
        def remove_connector(self, name, *, timeout=30.0) -> int
        def put_task_configs(self, name, configs: Sequence[Mapping[str, str]], epoch: int, *, timeout=30.0) -> int
        def put_target_state(self, name, state: TargetState, *, timeout=30.0) -> int
        def put_restart_request(self, request: RestartRequest, *, timeout=30.0) -> int
        def clear_restart_request(self, name, *, timeout=30.0) -> int
        def put_task_restart_request(self, task: ConnectorTaskId, *, timeout=30.0) -> int   # kconnect record
        def clear_task_restart_request(self, task: ConnectorTaskId, *, timeout=30.0) -> int
        def put_task_count_record(self, name, count: int, *, timeout=30.0) -> int          # tasks-fencing-<c>
        def put_logger_level(self, namespace, level: str, *, timeout=30.0) -> int
        def put_extension(self, key: str, value: Mapping[str, Any] | None, *, timeout=30.0) -> int
            # key "kconnect-..." (placement, worker registration...); None deletes; in snapshot.extensions
    ClusterConfigState (frozen): offset, connector_configs, target_states, task_configs, task_config_generations,
        task_config_epochs, applied_connector_configs, inconsistent, task_count_records,
        restart_requests: {connector: RestartRecord(request, offset)}, task_restart_requests: {task: offset},
        logger_levels (in the order of their latest records), connector_removals, task_removals, extensions;
        connectors(), contains(), connector_config(), target_state() (STARTED if none), tasks(), task_count(),
        task_config(task), task_config_generation(), is_inconsistent(), removal_offset(connector, task=None)
    ConfigChange(kind: ChangeKind, name: str, offset: int, task: int | None)

    class KafkaOffsetStore:   # connect.runtime.offsets.OffsetStore
        def __init__(self, topic, clients, *, name="offsets", start_timeout=60.0, read_timeout=30.0, ...) -> None
        start(), stop(), get(keys), set(values), flush(timeout=None), snapshot()   # get/snapshot read to end first
        def read_to_end(self, timeout: float) -> None
        def offset_records(self, values: Mapping[bytes, bytes | None]) -> list[OffsetRecord]
            # OffsetRecord(topic, partition, key, value): for an exactly-once task's transactional producer

    class KafkaStatusStore:   # connect.runtime.status.StatusListener + MemoryStatusStore's reads
        def __init__(self, topic, clients, worker_id: str, *, generation: int = 0, name="status", ...) -> None
            # `generation` stamps the store's own listener calls; put_* write the generation they are given
        def put_connector(self, connector, entry: StatusEntry, *, safe=False) -> None   # Kafka's put / putSafe
        def put_task(self, task: ConnectorTaskId, entry: StatusEntry, *, safe=False) -> None
        start(timeout), stop(), read_to_end(timeout); connector_status, task_status, task_statuses,
        connector_snapshot, all, active_topics, reset_active_topics; connector_entry/task_entry -> StatusEntry
        (status, generation); topic_statuses(connector) -> list[TopicStatus]
        def stored(self) -> StoredStatuses          # every key read: connectors, tasks (with entries), topics
        def tombstone(self, *, connectors=(), tasks=(), topics=(), timeout: float) -> None  # blocks until acked
"""

from connect.runtime.stores.cluster_config import ChangeKind, ClusterConfigState, ConfigChange, RestartRecord
from connect.runtime.stores.config_log import ConfigListener, ConfigLog
from connect.runtime.stores.config_log_state import ConfigLogState
from connect.runtime.stores.murmur2 import key_partition, murmur2
from connect.runtime.stores.offset_store import KafkaOffsetStore, OffsetRecord
from connect.runtime.stores.status_records import StatusEntry, TopicStatus
from connect.runtime.stores.status_store import KafkaStatusStore, StoredStatuses
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
