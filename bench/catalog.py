"""The benchmark groups in report order: the names `--only` accepts and the headings of the page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    name: str
    title: str


GROUPS: tuple[Group, ...] = (
    Group("raw", "Raw confluent-kafka client (the limit)"),
    Group("source", "Source throughput: FileStreamSource → Kafka"),
    Group("datagen", "Source throughput: kconnect's datagen"),
    Group("sink", "Sink throughput: Kafka → FileStreamSink"),
    Group("latency", "End-to-end latency at a fixed rate"),
    Group("rest", "REST latency under concurrent load"),
    Group("paced", "Many small connectors: REST latency and CPU"),
    Group("memory", "Resident memory"),
    Group("startup", "Start-up: process start to REST ready, and a killed worker's sink writing again"),
    Group("failover", "Distributed mode: failover, and source throughput on 3 workers"),
    Group("broker-restart", "Distributed mode: a restart of the only broker under 3 workers"),
    Group("rebalance", "Distributed mode: a worker joins, a worker restarts"),
    Group("spark", "Kafka → Parquet: the Spark sink, Structured Streaming and pyarrow"),
    Group("sql", "SQL connectors on PostgreSQL, next to plain SQLAlchemy loops"),
    Group("avro", "Avro through a Schema Registry: AvroConverter next to confluent-kafka's serializers"),
    Group("security", "Secured: REST over HTTPS with basic auth, FileStream pairs over SASL_SSL"),
    Group("authorization", "Permissions: what the RoleAuthorizer adds to a request over authentication alone"),
    Group("metrics", "Metrics: what recording costs, and a /metrics scrape of 100 connectors of 4 tasks"),
    Group("mirror", "MirrorMaker 2: kconnect's next to Java's, dedicated mode, between two clusters"),
    Group("cdc", "Change data capture from PostgreSQL: kconnect's PostgresConnector next to Debezium's"),
)

GROUP_NAMES: tuple[str, ...] = tuple(group.name for group in GROUPS)

# The system keys every scenario uses, and how the report names them.
KCONNECT = "kconnect"
KCONNECT_PROCESSES = "kconnect-processes"
KCONNECT_METRICS_OFF = "kconnect-metrics-off"
JAVA_CONNECT = "java-connect"
RAW_CLIENT = "confluent-kafka"
PLAIN_SQLALCHEMY = "plain-sqlalchemy"

SYSTEM_LABELS = {
    KCONNECT: "kconnect",
    KCONNECT_PROCESSES: "kconnect, task processes",
    KCONNECT_METRICS_OFF: "kconnect, metrics recording off",
    JAVA_CONNECT: "Java Kafka Connect",
    RAW_CLIENT: "raw confluent-kafka",
    PLAIN_SQLALCHEMY: "plain SQLAlchemy loop",
}


def group_title(name: str) -> str:
    for group in GROUPS:
        if group.name == name:
            return group.title
    return name
