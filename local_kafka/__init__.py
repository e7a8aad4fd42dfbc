"""The project's own local Apache Kafka: jars from Maven Central, KRaft nodes as `java` processes.

Used by `kconnect kafka ...` (cli.py) and by the test fixtures through LocalKafka.
"""

from local_kafka.cluster import ClusterStatus, LocalKafka, NodeStatus
from local_kafka.errors import LocalKafkaError, ToolMissingError
from local_kafka.jars import default_version, fetch_jars

__all__ = [
    "ClusterStatus",
    "LocalKafka",
    "LocalKafkaError",
    "NodeStatus",
    "ToolMissingError",
    "default_version",
    "fetch_jars",
]
