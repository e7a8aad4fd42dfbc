"""The mirror connectors' door to Kafka: clients of either cluster of a flow, built with the runtime's client
factory (Java key names translated for librdkafka, TLS stores read, SASL JAAS parsed), as Java's MirrorMaker
builds its own clients and Connect's `TopicAdmin`.

With `remote_topics`, the only modules of `connect/mirror` that reach into the runtime (its Kafka package);
the rest are plain logic over the plug-in API.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from connect.api.errors import ConnectError, RetriableError
from connect.api.records import TopicPartition
from connect.mirror.client_configs import Client, Side, client_config
from connect.runtime.kafka import KafkaAdmin, KafkaAssignedConsumer, KafkaClients, ProducerLike, TopicSpec

log = logging.getLogger(__name__)

RecordHandler = Callable[[bytes | None, bytes | None], None]


def _clients(settings: Mapping[str, str]) -> KafkaClients:
    return KafkaClients(producer_props={}, consumer_props={}, admin_props=settings)


def admin(props: Mapping[str, str], side: Side, role: str) -> KafkaAdmin:
    """An admin client of the flow's `side` cluster, named for `role` in its client id."""
    settings = client_config(props, side, "admin", role)
    return _clients(settings).admin(settings["client.id"])


def consumer(props: Mapping[str, str], side: Side, role: str, task_index: int | None = None) -> KafkaAssignedConsumer:
    """A consumer of the `side` cluster that reads assigned partitions, without a group."""
    settings = client_config(props, side, "consumer", role, task_index)
    return _clients(settings).assigned_consumer(settings)


def producer(props: Mapping[str, str], side: Side, role: str, task_index: int | None = None) -> ProducerLike:
    settings = client_config(props, side, "producer", role, task_index)
    return _clients(settings).plain_producer(settings)


def client_settings(props: Mapping[str, str], side: Side, client: Client) -> dict[str, str]:
    """The Kafka-named settings of a client of `side` (for checks such as the consumer's isolation level)."""
    return client_config(props, side, client, "settings")


def create_compacted_topic(kafka: KafkaAdmin, name: str, replication_factor: int, timeout_s: float) -> None:
    """Create a 1-partition compacted topic (MirrorMaker's internal topics) unless it exists; a refusal for
    want of rights or support is logged, as Java's MirrorUtils does, since an operator may have created it."""
    spec = TopicSpec(name, 1, replication_factor, {"cleanup.policy": "compact"})
    if kafka.create_topics([spec], timeout_s, refusals_tolerated=True):
        log.info("Created topic %s", name)


class PartitionReader:
    """Reads partition 0 of one of MirrorMaker's compacted topics from the beginning (Java's `KafkaBasedLog` over
    the offset-syncs or checkpoints topic), handing each record's key and value to `handle`.

    `read_to_end` reads up to the end offset the topic has when it is called; `follow` then keeps reading on a
    thread of its own until `stop`. Belongs to its caller's thread until `follow`.
    """

    def __init__(
        self,
        props: Mapping[str, str],
        side: Side,
        role: str,
        topic: str,
        handle: RecordHandler,
        task_index: int | None = None,
    ) -> None:
        reading = {**props, f"{side}.consumer.auto.offset.reset": "earliest"}
        self._consumer = consumer(reading, side, role, task_index)
        self._admin = admin(props, side, f"{role}-admin")
        self._topic = topic
        self._handle = handle
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def read_to_end(self, timeout_s: float) -> None:
        """Everything written before this call; ConnectError if the topic cannot be read within `timeout_s`."""
        partition = TopicPartition(self._topic, 0)
        end = self._admin.end_offsets([partition], timeout_s)[partition]
        self._consumer.assign({(self._topic, 0): None})
        deadline = time.monotonic() + timeout_s
        position = 0
        while position < end:
            if time.monotonic() > deadline:
                raise RetriableError(f"Could not read {self._topic} to its end ({end}) within {timeout_s:.0f} s")
            for message in self._consumer.consume(1000, 0.5):
                position = int(message.offset() or 0) + 1
                self._handle(message.key(), message.value())

    def follow(self, name: str) -> None:
        self._thread = threading.Thread(target=self._follow, name=name, daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        while not self._stopped.is_set():
            try:
                for message in self._consumer.consume(1000, 0.5):
                    self._handle(message.key(), message.value())
            except ConnectError as exc:
                log.warning("Reading %s: %s; trying again", self._topic, exc)
                self._stopped.wait(1.0)

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(10)
        self._consumer.close()
        self._admin.close()
