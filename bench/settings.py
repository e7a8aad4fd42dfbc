"""The settings every side of a comparison shares, and the sizes of quick and full runs.

Producer settings are given explicitly, with keys librdkafka and the Java client read the same way,
to the raw producer, to kconnect's worker (`producer.*`) and to Java Connect's worker (`producer.*`),
so no side runs on its own defaults. The values are kconnect's worker defaults
(connect/runtime/kafka/client_config.py: Kafka Connect's acks=all, one request in flight, no idempotence,
plus linger.ms=5) and librdkafka's batch.size; for Java Connect, whose defaults match except for
batch.size (16384), that means bigger batches than it would use out of the box.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# librdkafka and the Java producer agree on these names and meanings.
PRODUCER_SETTINGS: dict[str, str] = {
    "acks": "all",
    "linger.ms": "5",
    "batch.size": "1000000",
    "compression.type": "none",
    "max.in.flight.requests.per.connection": "1",
    "enable.idempotence": "false",
}

# What kconnect's worker gives a sink task's consumer on top of librdkafka's defaults (Java Connect's
# consumer defaults are the same); the raw consumer gets them too.
CONSUMER_SETTINGS: dict[str, str] = {
    "enable.auto.commit": "false",
    "auto.offset.reset": "earliest",
    "isolation.level": "read_uncommitted",
    # kconnect's sink consumers set this too: librdkafka's default (1000 ms) pauses fetching for a second
    # whenever its prefetch queue is full, which would make the raw "limit" several times too low.
    "fetch.queue.backoff.ms": "10",
}

# Source offsets and sink commits every 250 ms on both workers (Kafka's default is 60 s): a sink that
# makes its output visible only on flush is then at most 250 ms behind the data, which bounds the
# error of "time until the file is complete" and of the file-based latency.
OFFSET_FLUSH_INTERVAL_MS = 250

# Distributed mode, both systems: kconnect's failover target is S + H + 2 s with S = 10 s, H = 2 s.
# Java's own defaults are S = 10 s and H = 3 s; kconnect's are Kafka Connect's. Partition counts of
# the internal topics are Kafka's defaults, written out for both.
SESSION_TIMEOUT_MS = 10_000
HEARTBEAT_INTERVAL_MS = 2_000
OFFSET_STORAGE_PARTITIONS = 25
STATUS_STORAGE_PARTITIONS = 5
CLUSTER_WORKERS = 3
# Java's incremental cooperative assignor holds a departed worker's connectors and tasks unassigned for
# up to this long (its default), waiting for the worker to come back; 0 reassigns them at once.
REBALANCE_DELAY_KEY = "scheduled.rebalance.max.delay.ms"
JAVA_DEFAULT_REBALANCE_DELAY_MS = 300_000

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
DATAGEN = "DatagenConnector"
# Kafka's own rate-limited test source (connect-test-plugins), Java's peer of a rate-limited datagen.
VERIFIABLE_SOURCE = "org.apache.kafka.connect.tools.VerifiableSourceConnector"

VALUE_SIZES: dict[str, int] = {"100B": 100, "1KB": 1024}
FILE_BATCH_SIZE = 2000  # FileStreamSource's `batch.size` default, written out on both sides.
# FileStreamSource is single-task in both systems: "4 tasks" is 4 connectors, each with its own file.
SOURCE_TASKS = 4
# The task counts of the standalone source group's scaling row (the distributed one runs 1 and SOURCE_TASKS).
SOURCE_TASK_COUNTS = (1, 2, SOURCE_TASKS)


@dataclass(frozen=True)
class Sizes:
    """How much each scenario does; `quick` keeps `python -m bench --quick` under 10 minutes on 2 cores."""

    warmups: int
    repetitions: int
    raw_records: dict[str, int]
    connect_records: dict[str, int]
    sink_records: dict[str, int]
    latency_rate: int
    latency_seconds: float
    latency_warmup_seconds: float
    rest_connectors: int
    rest_seconds: float
    rest_get_rate: int
    rest_post_rate: int
    paced_connectors: int
    paced_rate: int
    paced_seconds: float
    paced_warmup_seconds: float
    memory_records: int
    memory_tasks: int
    startup_repetitions: int
    idle_settle_seconds: float
    distributed_source_records: int
    distributed_repetitions: int
    failover_connectors: int
    failover_trials: int  # per fault
    failover_bound_seconds: float
    failover_default_kills: int  # kill -9 and the pause
    failover_default_signal_trials: int  # SIGSTOP and SIGTERM
    failover_default_bound_seconds: float
    broker_restart_trials: int  # per cluster, Java's default-delay one included
    # cdc: rows per table by value size (a snapshot of them, then as many inserts, then an update of each);
    # single-row transactions a second and seconds of the latency row
    cdc_rows: dict[str, int]
    cdc_latency_rate: int
    cdc_latency_seconds: float
    # rebalance: joins of a 4th worker (each after the first follows a SIGTERM of that worker), then restarts of
    # one worker; Java's default-delay cluster joins once (a leave holds the leaver's tasks for 5 minutes) and
    # restarts `rebalance_default_restarts` times (0: that cluster is not run).
    rebalance_joins: int
    rebalance_restarts: int
    rebalance_default_restarts: int
    rebalance_steady_seconds: float
    # rows per SQL benchmark (bench/scenarios/sql.py), by value size
    sql_records: dict[str, int]
    # security: `GET /connectors/{c}/status` per second on each listener, seconds per listener and repetition,
    # and the 100B lines of each FileStreamSource/FileStreamSink pair run
    security_rest_rate: int
    security_rest_seconds: float
    security_pair_records: int
    # metrics: 100B records per throughput repetition (metrics on and off alternate), and the connectors
    # (4 tasks each) of the scrape measurement and how many scrapes are timed
    metrics_records: int
    metrics_connectors: int
    metrics_scrapes: int
    # mirror: records per throughput repetition by value size, seconds of the 10,000 records/s latency run (after
    # its warm-up), and how many new topics are timed until they appear on the target
    mirror_records: dict[str, int]
    mirror_latency_seconds: float
    mirror_latency_warmup_seconds: float
    mirror_new_topics: int

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


FULL = Sizes(
    warmups=1,
    repetitions=5,
    raw_records={"100B": 5_000_000, "1KB": 1_000_000},
    connect_records={"100B": 3_000_000, "1KB": 1_000_000},
    sink_records={"100B": 3_000_000, "1KB": 1_000_000},
    latency_rate=1000,
    latency_seconds=60.0,
    latency_warmup_seconds=5.0,
    rest_connectors=50,
    rest_seconds=30.0,
    rest_get_rate=45,
    rest_post_rate=10,
    paced_connectors=50,
    paced_rate=200,
    paced_seconds=30.0,
    paced_warmup_seconds=5.0,
    memory_records=200_000,
    memory_tasks=10,
    startup_repetitions=5,
    idle_settle_seconds=10.0,
    distributed_source_records=3_000_000,
    distributed_repetitions=3,
    failover_connectors=6,
    failover_trials=20,
    failover_bound_seconds=120.0,
    # Each kill under Java's default delay takes about 5 minutes to recover: 20 would add 2 hours.
    failover_default_kills=3,
    # SIGSTOP and SIGTERM also leave the work unassigned for the whole delay: one each adds 10 minutes.
    failover_default_signal_trials=1,
    failover_default_bound_seconds=420.0,
    broker_restart_trials=20,
    cdc_rows={"100B": 200_000, "1KB": 100_000},
    cdc_latency_rate=500,
    cdc_latency_seconds=30.0,
    rebalance_joins=5,
    rebalance_restarts=3,
    # Each takes the whole 5-minute delay (see bench/scenarios/rebalance.py).
    rebalance_default_restarts=1,
    rebalance_steady_seconds=10.0,
    sql_records={"100B": 1_000_000, "1KB": 300_000},
    security_rest_rate=20,
    security_rest_seconds=10.0,
    security_pair_records=3_000_000,
    metrics_records=3_000_000,
    metrics_connectors=100,
    metrics_scrapes=50,
    mirror_records={"100B": 3_000_000, "1KB": 1_000_000},
    mirror_latency_seconds=30.0,
    mirror_latency_warmup_seconds=5.0,
    mirror_new_topics=5,
)

QUICK = Sizes(
    warmups=1,
    repetitions=3,
    raw_records={"100B": 1_000_000, "1KB": 250_000},
    connect_records={"100B": 1_000_000, "1KB": 300_000},
    sink_records={"100B": 1_000_000, "1KB": 300_000},
    latency_rate=1000,
    latency_seconds=10.0,
    latency_warmup_seconds=3.0,
    rest_connectors=50,
    rest_seconds=10.0,
    rest_get_rate=45,
    rest_post_rate=10,
    paced_connectors=50,
    paced_rate=200,
    paced_seconds=10.0,
    paced_warmup_seconds=3.0,
    memory_records=50_000,
    memory_tasks=10,
    startup_repetitions=3,
    idle_settle_seconds=5.0,
    distributed_source_records=500_000,
    distributed_repetitions=1,
    failover_connectors=6,
    failover_trials=2,
    failover_bound_seconds=60.0,
    failover_default_kills=1,
    failover_default_signal_trials=1,
    failover_default_bound_seconds=25.0,
    broker_restart_trials=2,
    cdc_rows={"100B": 20_000, "1KB": 10_000},
    cdc_latency_rate=200,
    cdc_latency_seconds=10.0,
    # One join and one restart per cluster: the group then takes about 4 minutes, most of it Java's set-up.
    rebalance_joins=1,
    rebalance_restarts=1,
    rebalance_default_restarts=0,
    rebalance_steady_seconds=6.0,
    sql_records={"100B": 200_000, "1KB": 60_000},
    security_rest_rate=20,
    security_rest_seconds=4.0,
    security_pair_records=1_000_000,
    metrics_records=1_000_000,
    metrics_connectors=25,
    metrics_scrapes=20,
    mirror_records={"100B": 1_000_000, "1KB": 300_000},
    mirror_latency_seconds=10.0,
    mirror_latency_warmup_seconds=3.0,
    mirror_new_topics=3,
)
