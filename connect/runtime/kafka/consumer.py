"""`KafkaSinkConsumer`: confluent_kafka.Consumer behind the `SinkConsumer` protocol, speaking connect.api's
TopicPartition and plain int offsets, with Java-like `poll` batching and pauses that survive rebalances.

Belongs to one thread (a sink task's, or the one running a worker's own consumer, e.g. distributed mode's
membership): the rebalance callbacks run inside `consume`/`close` on that thread and call its
`RebalanceListener` there.

A consumer that lost its partitions (its session expired, e.g. while the group's coordinator restarted)
must join its group again. librdkafka does that itself, but after a broker restart it can stay out of the
group until its next metadata refresh (`client_config.CONSUMER_DEFAULTS` bounds that wait), and nothing
promises it is the only way to get stuck there. So a consumer that is given no assignment within a rejoin
timeout after a loss is replaced by a new one that subscribes afresh (`rebuild`); the loss had already
taken its partitions away, so nothing is handed over twice, and the new member gets them back at the next
rebalance.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from connect.api.errors import ConnectError
from connect.api.records import TopicPartition
from connect.runtime.kafka.errors import connect_error
from connect.runtime.kafka.protocols import KafkaMessage, RebalanceListener

log = logging.getLogger(__name__)

# Time a consumer that lost its partitions is given to join its group again before it is replaced, unless
# the factory says otherwise (it passes the session timeout): a rejoin normally takes a round trip or two,
# or as long as the group's slowest member takes to rejoin.
DEFAULT_REJOIN_TIMEOUT_S = 45.0


def close_in_background(consumer: Consumer) -> None:
    """Close a replaced consumer off the task's thread: a consumer stuck outside its group may take long to
    close (librdkafka waits for its coordinator), and the task must not wait for it."""

    def close() -> None:
        try:
            consumer.close()
        except Exception as exc:  # nothing depends on the old consumer any more
            log.info("The replaced consumer did not close cleanly: %s", exc)

    threading.Thread(target=close, name="kconnect-retired-consumer", daemon=True).start()


class KafkaSinkConsumer:
    """confluent_kafka.Consumer behind the `SinkConsumer` protocol; used by exactly one task thread (and
    `lags` by metrics reads)."""

    def __init__(
        self,
        consumer: Consumer,
        cooperative: bool,
        max_records: int,
        *,
        before_join: Callable[[], None] | None = None,
        rebuild: Callable[[], Consumer] | None = None,
        rejoin_timeout: float = DEFAULT_REJOIN_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`before_join`: run on the task's thread just before the consumer subscribes (joins its group).
        `rebuild`: makes a new consumer like this one, to replace one that lost its partitions and was not
        given any again within `rejoin_timeout` seconds (None: never replaced)."""
        self._consumer = consumer
        self._before_join = before_join
        self._rebuild = rebuild
        self._rejoin_timeout = rejoin_timeout
        self._clock = clock
        self._lost_at: float | None = None
        self._subscription: list[str] = []
        self._cooperative = cooperative
        self.max_records = max_records
        self._listener: RebalanceListener | None = None
        self._paused: set[TopicPartition] = set()
        self._pause_all = False
        self._callback_error: BaseException | None = None
        self._open = threading.Lock()
        self._closed = False

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self._listener = listener
        # librdkafka treats a subscription that starts with ^ as a regex.
        self._subscription = [pattern if pattern.startswith("^") else "^" + pattern] if pattern else list(topics)
        self._join()

    def _join(self) -> None:
        if self._before_join is not None:
            self._before_join()
        self._consumer.subscribe(
            self._subscription, on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost
        )

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        if self._lost_at is not None and self._clock() - self._lost_at > self._rejoin_timeout:
            self._replace_consumer()
        return self._consume(max_records, timeout)

    def _replace_consumer(self) -> None:
        """A new consumer in place of one that lost its partitions and has not joined its group again."""
        if self._rebuild is None:
            return
        log.warning(
            "The consumer lost its partitions %.0f s ago and has not joined its group again: replacing it with "
            "a new one",
            self._clock() - self._lost_at if self._lost_at is not None else 0.0,
        )
        retired = self._consumer
        try:
            replacement = self._rebuild()
        except Exception as exc:  # the old consumer may still rejoin; try again later
            log.warning("Could not make a new consumer (%s); trying again in %.0f s", exc, self._rejoin_timeout)
            self._lost_at = self._clock()
            return
        with self._open:
            self._consumer = replacement
        self._lost_at = self._clock()
        close_in_background(retired)
        self._join()

    def _consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        # librdkafka's consume(n, timeout) waits until n messages are queued or the timeout passes, so on a
        # quiet topic every record would wait up to `timeout`. Like Java's poll, return what is queued now,
        # and block (for one message, then take what came with it) only when nothing is.
        consumer = self._consumer
        try:
            messages = consumer.consume(max_records, 0)
            if not messages and timeout > 0 and self._callback_error is None:
                first = consumer.poll(timeout)
                if first is not None:
                    messages = [first]
                    if max_records > 1 and self._callback_error is None:
                        messages += consumer.consume(max_records - 1, 0)
        except KafkaException as exc:
            raise connect_error(exc, "Consumer failed") from exc
        if self._callback_error is not None:
            error, self._callback_error = self._callback_error, None
            raise error
        for message in messages:
            if message.error() is not None:
                return self._without_errors(messages)
        return messages  # type: ignore[return-value]

    def _without_errors(self, messages: list[Any]) -> list[KafkaMessage]:
        good: list[KafkaMessage] = []
        for message in messages:
            error = message.error()
            if error is None:
                good.append(message)
            elif error.fatal():
                raise ConnectError(f"Consumer failed: {error.str()}")
            elif error.code() != KafkaError._PARTITION_EOF:
                log.warning("Consumer error (librdkafka retries): %s", error.str())
        return good

    def assignment(self) -> set[TopicPartition]:
        return {TopicPartition(tp.topic, tp.partition) for tp in self._consumer.assignment()}

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        # Called by metrics reads on other threads while the task thread consumes (librdkafka allows it),
        # but never while or after the consumer closes: its handle is freed then.
        if not self._open.acquire(blocking=False):
            return {}
        try:
            if self._closed:
                return {}
            return self._lags(fresh, timeout)
        finally:
            self._open.release()

    def _lags(self, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        positions = self._consumer.position(self._consumer.assignment())
        lags: dict[TopicPartition, int] = {}
        for tp in positions:
            if tp.offset < 0:
                continue  # nothing consumed yet: no position to measure from
            try:
                _low, high = self._consumer.get_watermark_offsets(tp, timeout=timeout, cached=not fresh)
            except KafkaException as exc:
                log.debug("No end offset for %s [%d]: %s", tp.topic, tp.partition, exc)
                continue
            if high >= 0:
                lags[TopicPartition(tp.topic, tp.partition)] = max(0, high - tp.offset)
        return lags

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions)
        self._paused |= wanted
        self._apply_pause(wanted & self.assignment(), True)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions)
        self._paused -= wanted
        if not self._pause_all:
            self._apply_pause(wanted & self.assignment(), False)

    def set_pause_all(self, paused: bool) -> None:
        if paused == self._pause_all:
            return
        self._pause_all = paused
        assigned = self.assignment()
        self._apply_pause(assigned if paused else assigned - self._paused, paused)

    def _apply_pause(self, partitions: set[TopicPartition], pause: bool) -> None:
        if not partitions:
            return
        kafka = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        try:
            (self._consumer.pause if pause else self._consumer.resume)(kafka)
        except KafkaException as exc:
            raise connect_error(exc, "Could not pause/resume partitions") from exc

    def seek(self, partition: TopicPartition, offset: int) -> None:
        try:
            self._consumer.seek(KafkaTopicPartition(partition.topic, partition.partition, offset))
        except KafkaException as exc:
            raise connect_error(exc, f"Could not seek {partition.topic}-{partition.partition} to {offset}") from exc

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        kafka = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        if not kafka:
            return {}
        try:
            result = self._consumer.committed(kafka, timeout)
        except KafkaException as exc:
            raise connect_error(exc, "Could not read committed offsets") from exc
        return {TopicPartition(tp.topic, tp.partition): tp.offset for tp in result if tp.offset >= 0}

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        if not offsets:
            return
        kafka = [KafkaTopicPartition(tp.topic, tp.partition, offset) for tp, offset in offsets.items()]
        try:
            result = self._consumer.commit(offsets=kafka, asynchronous=False)
        except KafkaException as exc:
            raise connect_error(exc, "Offset commit failed") from exc
        failed = [f"{tp.topic}-{tp.partition}: {tp.error.str()}" for tp in result or () if tp.error is not None]
        if failed:
            raise ConnectError("Offset commit failed for " + ", ".join(failed))

    def close(self) -> None:
        with self._open:
            self._closed = True
            self._consumer.close()

    # Rebalance callbacks run inside consume()/close() on the task thread. Exceptions are kept and
    # raised from consume() after the assignment change was applied (what the C wrapper would do anyway,
    # but without losing which callback raised).
    def _on_assign(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        if consumer is not self._consumer:
            return  # a replaced consumer, closing: its task has a new one
        self._lost_at = None
        assigned = [TopicPartition(tp.topic, tp.partition) for tp in partitions]
        offsets: Mapping[TopicPartition, int] = {}
        try:
            if self._listener is not None and (assigned or not self._cooperative):
                offsets = self._listener.on_partitions_assigned(assigned)
        except BaseException as exc:
            self._callback_error = exc
        start = [KafkaTopicPartition(tp.topic, tp.partition, offsets.get(tp, OFFSET_INVALID)) for tp in assigned]
        if self._cooperative:
            consumer.incremental_assign(start)
        else:
            consumer.assign(start)
        to_pause = [
            KafkaTopicPartition(tp.topic, tp.partition) for tp in assigned if self._pause_all or tp in self._paused
        ]
        if to_pause:
            consumer.pause(to_pause)

    def _on_revoke(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        self._on_unassign(consumer, partitions, lost=False)

    def _on_lost(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        if consumer is self._consumer:
            self._lost_at = self._clock()
        self._on_unassign(consumer, partitions, lost=True)

    def _on_unassign(self, consumer: Consumer, partitions: list[KafkaTopicPartition], lost: bool) -> None:
        if consumer is not self._consumer:
            consumer.unassign()  # a replaced consumer, closing: its partitions were taken away when it lost them
            return
        revoked = [TopicPartition(tp.topic, tp.partition) for tp in partitions]
        try:
            if self._listener is not None and revoked:
                if lost:
                    self._listener.on_partitions_lost(revoked)
                else:
                    self._listener.on_partitions_revoked(revoked)
        except BaseException as exc:
            self._callback_error = exc
        if self._cooperative:
            consumer.incremental_unassign(partitions)
        else:
            consumer.unassign()
