"""`KafkaAssignedConsumer`: a consumer of partitions its caller assigns, with no group membership and no
commits; the caller keeps positions elsewhere (MirrorMaker's source task keeps them in Connect's offsets,
as Java's reads with `assign()` and no `group.id`).

librdkafka wants a `group.id` even so; one is set that never joins a group nor commits, so it needs no group
rights and shows up nowhere. Belongs to one thread (a task's).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from connect.runtime.kafka.errors import connect_error
from connect.runtime.kafka.protocols import KafkaMessage

log = logging.getLogger(__name__)

TopicPartitionKey = tuple[str, int]


class KafkaAssignedConsumer:
    def __init__(self, consumer: Consumer, reset_to_latest: bool) -> None:
        """`reset_to_latest`: partitions without a start offset begin at the end (`auto.offset.reset=latest`),
        else at the beginning."""
        self._consumer = consumer
        self._reset = OFFSET_END if reset_to_latest else OFFSET_BEGINNING
        self._assigned: dict[TopicPartitionKey, int] = {}

    def assign(self, starts: Mapping[TopicPartitionKey, int | None]) -> None:
        """Read `starts`' partitions (replacing the previous assignment), each from its offset, or per
        `auto.offset.reset` where None."""
        self._assigned = {tp: self._reset if offset is None else offset for tp, offset in starts.items()}
        try:
            self._consumer.assign([KafkaTopicPartition(t, p, o) for (t, p), o in self._assigned.items()])
        except KafkaException as exc:
            raise connect_error(exc, "Could not assign partitions") from exc

    def assignment(self) -> list[TopicPartitionKey]:
        return list(self._assigned)

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        """What is queued now (up to `max_records`), else what arrives within `timeout` seconds. Partition
        ends and transient errors are logged and skipped; librdkafka retries them."""
        consumer = self._consumer
        try:
            # consume(n, timeout) would wait for n messages: block for the first one only, as Java's poll does.
            messages = consumer.consume(max_records, 0)
            if not messages and timeout > 0:
                first = consumer.poll(timeout)
                messages = [] if first is None else [first, *consumer.consume(max_records - 1, 0)]
        except KafkaException as exc:
            raise connect_error(exc, "Could not consume") from exc
        records: list[KafkaMessage] = []
        for message in messages:
            error = message.error()
            if error is None:
                records.append(message)
            elif error.code() != KafkaError._PARTITION_EOF:
                if error.fatal():
                    raise connect_error(KafkaException(error), "The consumer failed")
                log.warning("Consumer error, retried by the client: %s", error.str())
        return records

    def close(self) -> None:
        try:
            self._consumer.close()
        except (KafkaException, RuntimeError) as exc:  # closing twice, or a broker gone: nothing left to do
            log.debug("Closing the consumer: %s", exc)


def assigned_consumer_config(settings: Mapping[str, str], client_id: str) -> dict[str, str]:
    """`settings` (librdkafka names) with what an assign-only consumer needs: never commit, a group id."""
    return {"group.id": f"kconnect-assigned-{client_id}", **settings, "enable.auto.commit": "false"}
