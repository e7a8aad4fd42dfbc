"""`KafkaLog`: a compacted internal topic read in full, then followed, plus confirmed writes.

The distributed stores (config log, status, offsets) are each one KafkaLog, as Kafka Connect's
`KafkaBasedLog`: a reader consumes every partition from the beginning and hands each record to
`on_record` in log order (per partition); `read_to_end` is the barrier that makes the caller see every
record written before it was called; `send` resolves a future once the write is acknowledged by all
in-sync replicas (idempotent producer, acks=all), with Java's murmur2 partitioning of keys.

Threads: the reader thread (daemon) creates, polls and closes its consumer and is the only caller of
`on_record`; the producer thread (daemon) serves delivery reports and resolves `send` futures (their
callbacks run there); `send`, `read_to_end`, `wait_until_read` may be called from any other thread.
The topics are created or verified before any log starts (`connect.runtime.kafka.internal_topics`).
Every client here is an internal one: it connects with the worker's top-level connection settings
(`KafkaClients.internal_config`), never with the `producer.*`/`consumer.*`/`admin.*` meant for connectors.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    IsolationLevel,
    KafkaError,
    KafkaException,
    Producer,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient

from connect.api.errors import ConfigError, ConnectError, RetriableError
from connect.runtime.kafka import KafkaClients, connect_error, delivery_error, end_offsets
from connect.runtime.kafka.client_logging import with_logging

log = logging.getLogger(__name__)

RecordCallback = Callable[[bytes | None, bytes | None, int, int], None]
"""`on_record(key, value, partition, offset)`; value None is a tombstone."""

# Writes must survive a broker failure and keep their order per partition: acks=all with the
# idempotent producer (librdkafka retries without duplicates or reordering, up to 5 in flight), and
# no delivery timeout, as Kafka Connect's internal producers (`send` callers bound their own waits).
INTERNAL_PRODUCER = {
    "message.timeout.ms": "2147483647",
    "acks": "all",
    "enable.idempotence": "true",
    "max.in.flight.requests.per.connection": "5",
    "partitioner": "murmur2_random",
    "linger.ms": "1",
}
# read_committed: offsets of exactly-once source tasks are written in the task's transaction, and a
# reader must never apply an offset whose records were aborted. It costs nothing without transactions.
INTERNAL_CONSUMER = {
    "enable.auto.commit": "false",
    "enable.auto.offset.store": "false",
    "auto.offset.reset": "earliest",
    "isolation.level": "read_committed",
    "enable.partition.eof": "true",
    "fetch.error.backoff.ms": "100",
}
POLL_S = 0.2
MAX_BATCH = 500


class KafkaLog:
    """One internal topic: `start` reads it to the end, then the reader follows it until `stop`."""

    def __init__(
        self,
        topic: str,
        clients: KafkaClients,
        *,
        on_record: RecordCallback,
        name: str,
        producer_overrides: Mapping[str, str] | None = None,
        consumer_overrides: Mapping[str, str] | None = None,
    ) -> None:
        self.topic = topic
        self.name = name
        self._on_record = on_record
        self._producer_config = _producer_config(clients, name, producer_overrides or {})
        self._consumer_config = _consumer_config(clients, name, consumer_overrides or {})
        self._admin_config = clients.internal_config("admin", f"kconnect-{name}-log-admin")
        committed = self._consumer_config.get("isolation.level") == "read_committed"
        self._isolation = IsolationLevel.READ_COMMITTED if committed else IsolationLevel.READ_UNCOMMITTED
        self._admin: AdminClient | None = None
        self._producer: Producer | None = None
        self._partitions: list[int] = []
        self._stopping = threading.Event()
        self._progress = threading.Condition()
        self._positions: dict[int, int] = {}  # next offset the reader will hand over, per partition
        self._reader_error: BaseException | None = None
        self._reader: threading.Thread | None = None
        self._poller: threading.Thread | None = None
        self._in_flight: set[Future[tuple[int, int]]] = set()
        self._in_flight_lock = threading.Lock()
        self._flush_timeout = 10.0

    @property
    def partitions(self) -> int:
        """The topic's partition count (known once started)."""
        return len(self._partitions)

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self, timeout: float) -> None:
        """Start the reader and the producer and return once every existing record went to `on_record`."""
        if self._reader is not None:
            raise ConnectError(f"{self.name} log already started")
        deadline = time.monotonic() + timeout
        self._admin = AdminClient(with_logging(log, self._admin_config))
        self._partitions = self._wait_for_partitions(deadline)
        self._positions = dict.fromkeys(self._partitions, 0)
        try:
            self._producer = Producer(with_logging(log, self._producer_config))
        except KafkaException as exc:
            raise ConfigError(f"Invalid producer configuration for the {self.name} log: {exc}") from exc
        self._poller = threading.Thread(target=self._serve_deliveries, name=f"{self.name}-log-producer", daemon=True)
        self._reader = threading.Thread(target=self._read, name=f"{self.name}-log-reader", daemon=True)
        self._poller.start()
        self._reader.start()
        try:
            self.read_to_end(max(deadline - time.monotonic(), 0.0))
        except BaseException:
            self.stop()
            raise
        log.info("Read the %s log (%s, %d partitions) to its end", self.name, self.topic, len(self._partitions))

    def stop(self, timeout: float = 30.0) -> None:
        """Stop reading; wait up to `timeout` for writes in flight (futures still open then fail)."""
        self._flush_timeout = max(timeout / 2, 0.1)
        self._stopping.set()
        deadline = time.monotonic() + timeout
        for thread in (self._reader, self._poller):
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(deadline - time.monotonic(), 0.1))
        with self._progress:
            self._progress.notify_all()
        self._fail_in_flight(ConnectError(f"The {self.name} log stopped before Kafka confirmed the write"))

    # -- writes ---------------------------------------------------------------------------------

    def send(
        self,
        key: bytes,
        value: bytes | None,
        partition: int | None = None,
        headers: Sequence[tuple[str, bytes]] | None = None,
    ) -> Future[tuple[int, int]]:
        """Write a record (None: tombstone); the future gives (partition, offset) once acknowledged, or fails
        (RetriableError when sending the record again may succeed: `delivery_error`)."""
        producer = self._producer
        if producer is None or self._stopping.is_set():
            raise ConnectError(f"The {self.name} log is not running")
        future: Future[tuple[int, int]] = Future()
        future.set_running_or_notify_cancel()
        with self._in_flight_lock:
            self._in_flight.add(future)

        def delivered(error: Any, message: Any) -> None:
            with self._in_flight_lock:
                self._in_flight.discard(future)
            # stop() may have failed it meanwhile.
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                if error is not None:
                    future.set_exception(
                        delivery_error(error, f"Could not write to the {self.name} log ({self.topic})")
                    )
                else:
                    future.set_result((int(message.partition()), int(message.offset())))

        target = -1 if partition is None else partition
        while True:
            try:
                producer.produce(
                    self.topic,
                    value=value,
                    key=key,
                    partition=target,
                    on_delivery=delivered,
                    headers=_produced_headers(headers),
                )
                return future
            except BufferError:
                # librdkafka's queue is full: wait for deliveries to make room (back-pressure).
                producer.poll(POLL_S)
                if self._stopping.is_set():
                    raise ConnectError(f"The {self.name} log stopped while its producer queue was full") from None
            except KafkaException as exc:
                with self._in_flight_lock:
                    self._in_flight.discard(future)
                raise connect_error(exc, f"Could not write to the {self.name} log ({self.topic})") from exc

    # -- one-shot reads -------------------------------------------------------------------------------

    def read_from_start(self, wanted: Callable[[bytes], bool], timeout: float) -> list[LogRecord]:
        """Every record now in the log whose key is `wanted`, with its timestamp and headers, in log order per
        partition. A reader of its own, from the beginning to the end offsets of the moment of the call: what
        compaction has removed is not there."""
        deadline = time.monotonic() + timeout
        ends = {partition: end for partition, end in self._end_offsets(deadline).items() if end > 0}
        if not ends:
            return []
        found: list[LogRecord] = []
        consumer = Consumer(with_logging(log, self._consumer_config))
        try:
            consumer.assign([KafkaTopicPartition(self.topic, p, OFFSET_BEGINNING) for p in ends])
            pending = dict(ends)
            while pending:
                if time.monotonic() >= deadline:
                    raise RetriableError(f"Timed out reading the {self.name} log ({self.topic}) from its start")
                messages: list[Any] = consumer.consume(MAX_BATCH, POLL_S)
                for message in messages:
                    error = message.error()
                    partition = message.partition()
                    if error is not None:
                        if error.code() == KafkaError._PARTITION_EOF:
                            pending.pop(partition, None)
                        elif error.fatal():
                            raise ConnectError(f"Fatal consumer error: {error.str()}")
                        continue
                    key, offset = message.key(), message.offset()
                    if key is not None and wanted(key):
                        found.append(
                            LogRecord(
                                key, message.value(), partition, offset, _timestamp_ms(message), _headers(message)
                            )
                        )
                    if offset + 1 >= pending.get(partition, 0):
                        pending.pop(partition, None)
        finally:
            consumer.close()
        return found

    def _serve_deliveries(self) -> None:
        producer = self._producer
        assert producer is not None
        while not self._stopping.is_set():
            producer.poll(POLL_S)
        remaining = producer.flush(self._flush_timeout)
        if remaining:
            log.warning("The %s log stopped with %d writes not confirmed by Kafka", self.name, remaining)

    def _fail_in_flight(self, error: ConnectError) -> None:
        with self._in_flight_lock:
            pending, self._in_flight = self._in_flight, set()
        for future in pending:
            # A delivery report may have resolved it meanwhile.
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)

    # -- reads ----------------------------------------------------------------------------------

    def read_to_end(self, timeout: float) -> None:
        """Return once every record written before this call (ours: sent) has been passed to `on_record`."""
        if threading.current_thread() is self._reader:
            raise ConnectError(
                f"read_to_end called from the {self.name} log's own reader thread (it would wait forever)"
            )
        deadline = time.monotonic() + timeout
        # Our own writes count as written before the call even while Kafka has not yet acknowledged them.
        with self._in_flight_lock:
            own = list(self._in_flight)
        if own:
            concurrent.futures.wait(own, timeout=max(deadline - time.monotonic(), 0.0))
        ends = self._end_offsets(deadline)
        self._wait(ends, deadline)

    def wait_until_read(self, partition: int, offset: int, timeout: float) -> None:
        """Return once the record at (`partition`, `offset`), e.g. one just sent, went to `on_record`."""
        self._wait({partition: offset + 1}, time.monotonic() + timeout)

    def positions(self) -> dict[int, int]:
        """Per partition, the offset of the next record the reader will hand over."""
        with self._progress:
            return dict(self._positions)

    def _wait(self, targets: Mapping[int, int], deadline: float) -> None:
        with self._progress:
            while True:
                if self._reader_error is not None:
                    raise ConnectError(f"The {self.name} log's reader failed: {self._reader_error}")
                behind = {p: t for p, t in targets.items() if self._positions.get(p, 0) < t}
                if not behind:
                    return
                if self._stopping.is_set():
                    raise ConnectError(f"The {self.name} log is stopped")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    detail = ", ".join(
                        f"partition {p} at {self._positions.get(p, 0)} of {t}" for p, t in behind.items()
                    )
                    raise RetriableError(f"Timed out reading the {self.name} log ({self.topic}) to its end: {detail}")
                self._progress.wait(min(remaining, 1.0))

    def _end_offsets(self, deadline: float) -> dict[int, int]:
        admin = self._admin
        if admin is None:
            raise ConnectError(f"The {self.name} log is not started")
        what = f"Could not find the end of the {self.name} log ({self.topic})"
        keys = [(self.topic, p) for p in self._partitions]
        found = end_offsets(
            admin, keys, what, deadline, isolation_level=self._isolation, stopping=self._stopping.is_set
        )
        return {partition: offset for (_, partition), offset in found.items()}

    def _wait_for_partitions(self, deadline: float) -> list[int]:
        # A topic created a moment ago may not be in every broker's metadata yet. All topics are listed
        # because asking for one by name makes a broker with auto.create.topics.enable create it.
        assert self._admin is not None
        while True:
            try:
                metadata = self._admin.list_topics(timeout=5.0).topics.get(self.topic)
            except KafkaException as exc:
                metadata = None
                last_error = str(exc)
            else:
                last_error = str(metadata.error) if metadata is not None and metadata.error else "no metadata"
            if metadata is not None and metadata.error is None and _all_led(metadata.partitions.values()):
                return sorted(metadata.partitions)
            if time.monotonic() >= deadline:
                raise RetriableError(f"Topic {self.topic} of the {self.name} log is not available: {last_error}")
            time.sleep(0.2)

    def _read(self) -> None:
        try:
            consumer = Consumer(with_logging(log, self._consumer_config))
            consumer.assign([KafkaTopicPartition(self.topic, p, OFFSET_BEGINNING) for p in self._partitions])
        except BaseException as exc:
            log.error("The %s log's reader could not start: %s", self.name, exc)
            self._reader_failed(exc)
            return
        try:
            while not self._stopping.is_set():
                # poll wakes up at the first record; consume(…, 0) then takes what else has arrived.
                # (consume with a timeout would wait that long for a full batch, delaying every read.)
                first = consumer.poll(POLL_S)
                if first is not None:
                    self._handle([first, *consumer.consume(MAX_BATCH, 0)])
        except BaseException as exc:
            log.exception("The %s log's reader failed", self.name)
            self._reader_failed(exc)
        finally:
            consumer.close()

    def _handle(self, messages: Sequence[Any]) -> None:
        advanced: dict[int, int] = {}
        for message in messages:
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    # The end offset, past any transaction markers that no record stands for.
                    advanced[message.partition()] = max(advanced.get(message.partition(), 0), message.offset())
                elif error.fatal():
                    raise ConnectError(f"Fatal consumer error: {error.str()}")
                else:
                    log.warning("The %s log's reader: %s (librdkafka retries)", self.name, error.str())
                continue
            partition, offset = message.partition(), message.offset()
            try:
                self._on_record(message.key(), message.value(), partition, offset)
            except Exception:
                log.exception("The %s log could not apply the record at %d/%d; skipped", self.name, partition, offset)
            advanced[partition] = offset + 1
        if advanced:
            with self._progress:
                for partition, position in advanced.items():
                    if position > self._positions.get(partition, 0):
                        self._positions[partition] = position
                self._progress.notify_all()

    def _reader_failed(self, error: BaseException) -> None:
        with self._progress:
            self._reader_error = error
            self._progress.notify_all()


@dataclass(frozen=True)
class LogRecord:
    """A record as `read_from_start` found it; `timestamp_ms` None when the record has none."""

    key: bytes
    value: bytes | None
    partition: int
    offset: int
    timestamp_ms: int | None
    headers: Mapping[str, bytes]


def _produced_headers(headers: Sequence[tuple[str, bytes]] | None) -> list[tuple[str, str | bytes | None]] | None:
    return [(name, value) for name, value in headers] if headers else None


def _timestamp_ms(message: Any) -> int | None:
    kind, value = message.timestamp()
    return int(value) if kind != TIMESTAMP_NOT_AVAILABLE and value >= 0 else None


def _headers(message: Any) -> dict[str, bytes]:
    return {name: value or b"" for name, value in message.headers() or ()}


def _all_led(partitions: Any) -> bool:
    listed = list(partitions)
    return bool(listed) and all(p.leader >= 0 for p in listed)


# -- client configs ------------------------------------------------------------------------------


def _producer_config(clients: KafkaClients, name: str, overrides: Mapping[str, str]) -> dict[str, str]:
    return clients.internal_config("producer", f"kconnect-{name}-log-producer", {**INTERNAL_PRODUCER, **overrides})


def _consumer_config(clients: KafkaClients, name: str, overrides: Mapping[str, str]) -> dict[str, str]:
    # librdkafka wants a group id even though the reader assigns partitions itself and never joins or
    # commits to this group.
    settings = {"group.id": f"kconnect-{name}-log-reader-{uuid.uuid4().hex[:8]}", **INTERNAL_CONSUMER, **overrides}
    return clients.internal_config("consumer", f"kconnect-{name}-log-reader", settings)


class KafkaLogStore:
    """What every store kept in a compacted topic shares (the users of Kafka's `KafkaBasedLog`): the topic's
    `KafkaLog`, whose records reach the store's `_on_record` on the log's reader thread. A subclass sets up the
    state `_on_record` writes to before it calls this constructor; the log reads nothing before `start`."""

    def __init__(
        self,
        topic: str,
        clients: KafkaClients,
        *,
        name: str,
        producer_overrides: Mapping[str, str] | None,
        consumer_overrides: Mapping[str, str] | None,
    ) -> None:
        self.topic = topic
        self._log = KafkaLog(
            topic,
            clients,
            on_record=self._on_record,
            name=name,
            producer_overrides=producer_overrides,
            consumer_overrides=consumer_overrides,
        )

    def _on_record(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        raise NotImplementedError
