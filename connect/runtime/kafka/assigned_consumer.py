"""`KafkaAssignedConsumer`: a consumer of partitions its caller assigns, with no group membership and no
commits; the caller keeps positions elsewhere (MirrorMaker's source task keeps them in Connect's offsets,
as Java's reads with `assign()` and no `group.id`).

librdkafka wants a `group.id` even so; one is set that never joins a group nor commits, so it needs no group
rights and shows up nowhere. Belongs to one thread (a task's).

A position the broker no longer has (records deleted by retention before they were read, or a topic deleted
and re-created) is not reset silently, as librdkafka's `auto.offset.reset` does: librdkafka runs with
`error`, and this class applies the caller's policy itself (earliest or latest; `none` fails the consumer)
and keeps an `OffsetReset` for each, which `take_resets` hands to the caller (MirrorMaker reports the gap).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from connect.api.errors import ConnectError
from connect.runtime.kafka.errors import connect_error
from connect.runtime.kafka.protocols import KafkaMessage

log = logging.getLogger(__name__)

TopicPartitionKey = tuple[str, int]


@dataclass(frozen=True)
class OffsetReset:
    """`topic`-`partition` could not be read at `position` (not on the broker) and was reset per the policy."""

    topic: str
    partition: int
    position: int


class KafkaAssignedConsumer:
    def __init__(self, consumer: Consumer, reset: str) -> None:
        """`reset` (`auto.offset.reset`): where partitions without a start offset, or whose position is gone,
        begin: `earliest`, `latest`, or `none` (a ConnectError instead)."""
        self._consumer = consumer
        self._reset_policy = reset
        self._reset = OFFSET_END if reset == "latest" else OFFSET_BEGINNING
        self._assigned: dict[TopicPartitionKey, int] = {}
        self._resets: list[OffsetReset] = []

    def assign(self, starts: Mapping[TopicPartitionKey, int | None]) -> None:
        """Read `starts`' partitions (replacing the previous assignment), each from its offset, or per
        `auto.offset.reset` where None."""
        self._assigned = {tp: self._reset if offset is None else offset for tp, offset in starts.items()}
        try:
            self._consumer.assign([KafkaTopicPartition(t, p, o) for (t, p), o in self._assigned.items()])
        except KafkaException as exc:
            raise connect_error(exc, "Could not assign partitions") from exc

    def high_watermark(self, topic: str, partition: int) -> int | None:
        """`topic`-`partition`'s end offset as the last fetch response said (no request); None before one, or
        once closed. Safe from another thread: librdkafka keeps it."""
        try:
            _, high = self._consumer.get_watermark_offsets(KafkaTopicPartition(topic, partition), cached=True)
        except (KafkaException, RuntimeError):
            return None
        return int(high) if high is not None and high >= 0 else None

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
            elif error.code() == KafkaError._AUTO_OFFSET_RESET:
                self._reset_partition(str(message.topic()), int(message.partition() or 0), int(message.offset() or 0))
            elif error.code() != KafkaError._PARTITION_EOF:
                if error.fatal():
                    raise connect_error(KafkaException(error), "The consumer failed")
                log.warning("Consumer error, retried by the client: %s", error.str())
        return records

    def _reset_partition(self, topic: str, partition: int, position: int) -> None:
        if self._reset_policy == "none":
            raise ConnectError(
                f"Offset {position} of {topic}-{partition} is no longer on the broker and auto.offset.reset is none"
            )
        # A partition in this state cannot seek: it is assigned again, at the policy's end.
        try:
            self._consumer.incremental_unassign([KafkaTopicPartition(topic, partition)])
            self._consumer.incremental_assign([KafkaTopicPartition(topic, partition, self._reset)])
        except KafkaException as exc:
            raise connect_error(exc, f"Could not reset {topic}-{partition}") from exc
        self._resets.append(OffsetReset(topic, partition, position))

    def take_resets(self) -> list[OffsetReset]:
        """The partitions reset since the last call, oldest first."""
        resets, self._resets = self._resets, []
        return resets

    def close(self) -> None:
        try:
            self._consumer.close()
        except (KafkaException, RuntimeError) as exc:  # closing twice, or a broker gone: nothing left to do
            log.debug("Closing the consumer: %s", exc)


def assigned_consumer_config(settings: Mapping[str, str], client_id: str) -> dict[str, str]:
    """`settings` (librdkafka names) with what an assign-only consumer needs: never commit, a group id, and
    lost positions reported rather than reset (the class applies `auto.offset.reset`)."""
    return {
        "group.id": f"kconnect-assigned-{client_id}",
        **settings,
        "enable.auto.commit": "false",
        "auto.offset.reset": "error",
    }
