"""The project's own local Apache Kafka: jars from Maven Central, KRaft nodes as `java` processes.

Used by `kconnect kafka ...` (cli.py) and by the test fixtures through LocalKafka.
"""

from workers.kafka_local.cluster import ClusterStatus, LocalKafka, NodeStatus
from workers.kafka_local.errors import LocalKafkaError, ToolMissingError
from workers.kafka_local.jars import default_version, fetch_jars

__all__ = [
    "ClusterStatus",
    "LocalKafka",
    "LocalKafkaError",
    "NodeStatus",
    "ToolMissingError",
    "default_version",
    "fetch_jars",
]
