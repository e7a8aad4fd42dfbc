"""Kafka clients for the runtime: the only runtime package that imports confluent_kafka (with `kafka_log`).

The rest of the runtime imports from here, and sees Protocols and wrappers, never confluent_kafka's types:

- `protocols`: `KafkaMessage`, `ProducerLike`, `TransactionalProducer`, `SinkConsumer`, `RebalanceListener`
  (no confluent_kafka; unit tests pass fakes that implement them);
- `factory`: `KafkaClients`, which builds every client with Kafka Connect's layered settings;
- `consumer`: `KafkaSinkConsumer`, a sink task's consumer;
- `assigned_consumer`: `KafkaAssignedConsumer`, a consumer of assigned partitions with no group (MirrorMaker's);
- `transactional`: `KafkaTransactionalProducer`, an exactly-once source task's producer;
- `batch_producer`: `BatchProducer`, a source task's producer that takes a batch's values in one
  librdkafka call (`rdkafka_ctypes`: the ctypes declarations it uses);
- `gapless`: `confirms_runs`, whether a producer's acknowledgement of a record vouches for the records before it;
- `admin`: `KafkaAdmin`, `TopicSpec`;
- `offset_lookup`: `end_offsets`, ListOffsets without librdkafka's busy loop while a leader is down
  (shared with `kafka_log`);
- `errors`: confluent_kafka's errors as ConnectError / RetriableError, and fencing detection.

Threading: a producer may be used from any thread; a `SinkConsumer` belongs to one thread (its rebalance
callbacks run inside `consume` on that thread); `KafkaAdmin` calls and `end_offsets` block the
caller.
"""

from connect.runtime.kafka.admin import KafkaAdmin, TopicConfigEntry, TopicSpec, admin_result
from connect.runtime.kafka.assigned_consumer import KafkaAssignedConsumer
from connect.runtime.kafka.client_config import override_violations, sink_group_id, to_librdkafka
from connect.runtime.kafka.consumer import KafkaSinkConsumer
from connect.runtime.kafka.errors import (
    ProducerFencedError,
    TransactionAbortRequiredError,
    connect_error,
    delivery_error,
    fencing_error,
    producer_fenced,
)
from connect.runtime.kafka.factory import KafkaClients
from connect.runtime.kafka.gapless import confirms_runs
from connect.runtime.kafka.offset_lookup import METADATA_REFRESH_TIMEOUT_S, end_offsets
from connect.runtime.kafka.protocols import (
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    TIMESTAMP_NOT_AVAILABLE,
    ColumnNotBytesError,
    DeliveryCallback,
    KafkaErrorLike,
    KafkaMessage,
    ProducedHeaders,
    ProducerLike,
    RebalanceListener,
    SinkConsumer,
    TransactionalProducer,
)
from connect.runtime.kafka.transactional import DEFAULT_TRANSACTION_TIMEOUT_MS, KafkaTransactionalProducer

__all__ = [
    "DEFAULT_TRANSACTION_TIMEOUT_MS",
    "METADATA_REFRESH_TIMEOUT_S",
    "TIMESTAMP_CREATE_TIME",
    "TIMESTAMP_LOG_APPEND_TIME",
    "TIMESTAMP_NOT_AVAILABLE",
    "ColumnNotBytesError",
    "DeliveryCallback",
    "KafkaAdmin",
    "KafkaAssignedConsumer",
    "KafkaClients",
    "KafkaErrorLike",
    "KafkaMessage",
    "KafkaSinkConsumer",
    "KafkaTransactionalProducer",
    "ProducedHeaders",
    "ProducerFencedError",
    "ProducerLike",
    "RebalanceListener",
    "SinkConsumer",
    "TopicConfigEntry",
    "TopicSpec",
    "TransactionAbortRequiredError",
    "TransactionalProducer",
    "admin_result",
    "confirms_runs",
    "connect_error",
    "delivery_error",
    "end_offsets",
    "fencing_error",
    "override_violations",
    "producer_fenced",
    "sink_group_id",
    "to_librdkafka",
]
