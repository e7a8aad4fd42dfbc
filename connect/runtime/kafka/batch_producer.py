"""`BatchProducer`: a source task's producer that enqueues a column of values with one librdkafka call.

A plain source task produces through confluent_kafka's `Producer`, one `produce()` call per record:
about 0.5 µs of the task thread's time each, as much as the rest of kconnect's work on a 100 B record
together (docs/performance.md, "Past the ceiling: librdkafka's batch call"). This producer owns a
librdkafka handle of its own, created through ctypes from the library confluent_kafka loaded
(`rdkafka_ctypes`), and adds `produce_values`: the values (and keys) of one batch go to
`rd_kafka_produce_batch` as one array, built with a few calls over whole columns, so the per-record
work left in Python is a `len()` and a copy of the bytes into one buffer. librdkafka copies each
message (`RD_KAFKA_MSG_F_COPY`), and ctypes releases the interpreter lock for the call, so other task
threads run meanwhile. A batch without keys goes to one partition, chosen for the batch
(`null_key_partitions`), so librdkafka's partitioner does not run for each of its records.

Everything else keeps the `ProducerLike` contract of confluent_kafka's producer, which the source task
loop relies on: `produce` for one record with a timestamp and headers (`rd_kafka_produceva`; BufferError
when the queue is full, KafkaException for a record librdkafka refuses), `poll`, `flush`, `len()`.
Delivery reports, client errors, statistics and librdkafka's log lines are read from the handle's main
queue with the event API in `poll` and `flush`, on the caller's thread, so no C callback ever enters
Python from librdkafka's threads; they reach the same places as confluent_kafka's callbacks do
(`error_cb`, `stats_cb`, the `logger`). Delivery reports are asked for failures only
(`delivery.report.only.error`): the caller learns of successes by flushing until the producer is empty.

Its `produce` of one record builds a ctypes argument array in Python: about 6 µs, against 0.5 for
confluent_kafka's. So it serves only source tasks that send columns and report failures only
(`KafkaClients.producer(batch_calls=True)`), unless a worker turns it off
(`source.batch.produce.enable=false`) or the library cannot be found; such a task switches to
confluent_kafka's producer when its batches carry timestamps or headers (`WorkerSourceTask`), and
exactly-once tasks keep confluent_kafka's transactional producer.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from connect.runtime.kafka import rdkafka_ctypes as rd
from connect.runtime.kafka.null_key_partitions import NullKeyPartitions, chooses_for_null_keys
from connect.runtime.kafka.protocols import ColumnNotBytesError

log = logging.getLogger(__name__)

# syslog levels, as librdkafka's log events carry them, to logging's.
_LOG_LEVELS = (logging.CRITICAL,) * 3 + (logging.ERROR, logging.WARNING, logging.INFO, logging.INFO, logging.DEBUG)
# How long `flush` blocks in librdkafka between two reads of the event queue.
_FLUSH_STEP_MS = 50
_ERRSTR_SIZE = 512
_MESSAGE_BYTES = rd.MESSAGE_WORDS * 8
# A metadata request on the task thread: at most this long (the lookup is retried later).
_METADATA_TIMEOUT_MS = 1000


class DeliveredMessage:
    """The message of a failed delivery report, as confluent_kafka's `Message` shows it."""

    __slots__ = ("_error", "_key", "_offset", "_partition", "_topic", "_value")

    def __init__(self, topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None, error: Any):
        self._topic, self._partition, self._offset = topic, partition, offset
        self._key, self._value, self._error = key, value, error

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def headers(self) -> None:
        return None

    def timestamp(self) -> tuple[int, int]:
        return (0, 0)

    def error(self) -> Any:
        return self._error


def kafka_error(code: int, reason: str | None = None, *, fatal: bool = False) -> KafkaError:
    return KafkaError(code, reason or _err2str(code), fatal=fatal)


def _err2str(code: int) -> str:
    lib = rd.load()
    text = lib.rd_kafka_err2str(code) if lib is not None else None
    return text.decode(errors="replace") if text else f"error {code}"


class BatchProducer:
    """A producer on a librdkafka handle of its own; see the module docstring. Construct with `create`."""

    def __init__(
        self,
        lib: ctypes.CDLL,
        handle: int,
        *,
        error_cb: Callable[[KafkaError], None] | None,
        stats_cb: Callable[[str], None] | None,
        logger: logging.Logger | None,
        partition_per_batch: bool = False,
    ) -> None:
        self._lib = lib
        self._handle: int | None = handle
        self._queue = lib.rd_kafka_queue_get_main(handle)
        self._error_cb = error_cb
        self._stats_cb = stats_cb
        self._logger = logger
        self._topics: dict[str, int] = {}
        # Delivery callbacks by the token each message carries as its opaque; dropped once nothing is
        # outstanding (no message, no report), which every flush to empty reaches.
        self._callbacks: dict[int, Callable[[Any, Any], None]] = {}
        self._tokens: dict[int, int] = {}
        # Topic handles, tokens, and each enqueue with the token it carries (a producer may be used from
        # any thread, and the tokens are dropped when nothing is outstanding).
        self._lock = threading.Lock()
        self._null_key_partitions = NullKeyPartitions(self._partitions_with_leader) if partition_per_batch else None

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> BatchProducer:
        """From confluent_kafka-style settings: librdkafka strings plus `error_cb`, `stats_cb`, `logger`
        (as confluent_kafka takes them) and `delivery.report.only.error`, which must be true.
        Raises KafkaException for a setting librdkafka refuses (its message names the property)."""
        lib = rd.load()
        if lib is None:
            raise RuntimeError("librdkafka is not available for batch produce")
        settings = dict(config)
        error_cb = settings.pop("error_cb", None)
        stats_cb = settings.pop("stats_cb", None)
        logger = settings.pop("logger", None)
        if settings.get("delivery.report.only.error") not in (True, "true"):
            raise ValueError("BatchProducer reports failed deliveries only: set delivery.report.only.error")
        settings["delivery.report.only.error"] = "true"
        settings["log.queue"] = "true"
        errstr = ctypes.create_string_buffer(_ERRSTR_SIZE)
        conf = lib.rd_kafka_conf_new()
        try:
            for name, value in settings.items():
                text = str(value).lower() if isinstance(value, bool) else str(value)
                if lib.rd_kafka_conf_set(conf, name.encode(), text.encode(), errstr, _ERRSTR_SIZE) != rd.CONF_OK:
                    raise KafkaException(kafka_error(KafkaError._INVALID_ARG, errstr.value.decode(errors="replace")))
            events = rd.EVENT_DR | rd.EVENT_ERROR | rd.EVENT_LOG | (rd.EVENT_STATS if stats_cb else 0)
            lib.rd_kafka_conf_set_events(conf, events)
            handle = lib.rd_kafka_new(rd.PRODUCER, conf, errstr, _ERRSTR_SIZE)
        except BaseException:
            lib.rd_kafka_conf_destroy(conf)
            raise
        if not handle:
            lib.rd_kafka_conf_destroy(conf)
            raise KafkaException(kafka_error(KafkaError._INVALID_ARG, errstr.value.decode(errors="replace")))
        lib.rd_kafka_set_log_queue(handle, None)  # log lines as events on the main queue
        return cls(
            lib,
            handle,
            error_cb=error_cb,
            stats_cb=stats_cb,
            logger=logger,
            partition_per_batch=chooses_for_null_keys(settings),
        )

    # -- producing ------------------------------------------------------------------------------------

    def produce_values(
        self,
        topic: str,
        partition: int,
        values: Sequence[bytes],
        keys: Sequence[bytes] | None,
        on_delivery: Callable[[Any, Any], None],
        wait_for_room: Callable[[], None],
    ) -> list[tuple[int, KafkaError]]:
        """Enqueue `values` (with `keys`, same length, or none) in order, to `partition` or (-1) as the
        partitioner says, with one librdkafka call. Every value and key must be bytes
        (`ColumnNotBytesError` otherwise, before anything is enqueued).

        While librdkafka's queue is full, calls `wait_for_room()` (which serves reports with `poll` and
        pauses briefly) and goes on from where the queue filled, with the array already built, so order
        holds and nothing is built twice. Returns the records librdkafka refused (index, error): too large,
        an unknown partition. `on_delivery(error, message)` runs in `poll`/`flush` for records that fail
        later. Values without keys and without a partition go to one partition together, chosen for the
        batch (`null_key_partitions`), where the settings let librdkafka pick a random one for them.
        """
        count = len(values)
        if not count:
            return []
        try:
            lengths = array("Q", map(len, values))
            payload = b"".join(values)  # TypeError for a None or str among them
            if keys is not None:
                key_lengths = array("Q", map(len, keys))
                key_payload = b"".join(keys)
        except TypeError as exc:
            raise ColumnNotBytesError(str(exc)) from None
        if partition == rd.PARTITION_UA and keys is None and self._null_key_partitions is not None:
            # After the column is known to be bytes: a refused column should not wait on a first lookup.
            partition = self._null_key_partitions.choose(topic)
        messages = bytearray(_MESSAGE_BYTES * count)
        words = memoryview(messages).cast("Q")
        step = rd.MESSAGE_WORDS
        words[rd.PAYLOAD_WORD :: step] = array("Q", accumulate(lengths[:-1], initial=_address(payload)))
        words[rd.LEN_WORD :: step] = lengths
        if keys is not None:
            words[rd.KEY_WORD :: step] = array("Q", accumulate(key_lengths[:-1], initial=_address(key_payload)))
            words[rd.KEY_LEN_WORD :: step] = key_lengths
        array_at = ctypes.addressof(ctypes.c_char.from_buffer(messages))
        topic_handle = self._topic(topic)
        refused: list[tuple[int, KafkaError]] = []
        start = 0
        while True:
            left = count - start
            with self._lock:
                # The token again on every attempt: a wait may have let the queue drain and the tokens go.
                words[rd.PRIVATE_WORD + start * step :: step] = array("Q", (self._token(on_delivery),)) * left
                enqueued = self._lib.rd_kafka_produce_batch(
                    topic_handle, partition, rd.MSG_F_COPY, array_at + start * _MESSAGE_BYTES, left
                )
            if enqueued == left:
                return refused
            # Each message's first word holds its error (an int and 4 bytes of padding).
            full_at = count
            for index, word in enumerate(words[start * step :: step], start):
                code = ctypes.c_int32(word & 0xFFFFFFFF).value
                if code == rd.ERR_QUEUE_FULL:
                    full_at = index  # librdkafka refuses every later message too, so order holds
                    break
                if code != rd.ERR_NO_ERROR:
                    refused.append((index, kafka_error(code)))
            if full_at == count:
                return refused
            start = full_at
            wait_for_room()

    def produce(
        self,
        topic: str,
        value: str | bytes | None = None,
        key: str | bytes | None = None,
        partition: int = -1,
        callback: Callable[[Any, Any], None] | None = None,
        on_delivery: Callable[[Any, Any], None] | None = None,
        timestamp: int = 0,
        headers: Iterable[tuple[str, str | bytes | None]] | None = None,
    ) -> None:
        """One record, as confluent_kafka's `Producer.produce` (BufferError: queue full)."""
        value_bytes = value.encode() if isinstance(value, str) else value
        key_bytes = key.encode() if isinstance(key, str) else key
        report = on_delivery or callback
        vus = (rd.VU * 9)()
        count = 0

        def put(vtype: int, field: str, *content: Any) -> None:
            nonlocal count
            vu = vus[count]
            vu.vtype = vtype
            if field == "mem":
                vu.u.mem.ptr, vu.u.mem.size = content
            else:
                setattr(vu.u, field, content[0])
            count += 1

        put(rd.VTYPE_TOPIC, "cstr", topic.encode())
        put(rd.VTYPE_PARTITION, "i32", rd.PARTITION_UA if partition is None else partition)
        put(rd.VTYPE_MSGFLAGS, "i32", rd.MSG_F_COPY)
        if value_bytes is not None:
            put(rd.VTYPE_VALUE, "mem", _address(value_bytes), len(value_bytes))
        if key_bytes is not None:
            put(rd.VTYPE_KEY, "mem", _address(key_bytes), len(key_bytes))
        if report is not None:
            put(rd.VTYPE_OPAQUE, "ptr", 0)  # the token, set under the lock below
            opaque_at = count - 1
        if timestamp:
            put(rd.VTYPE_TIMESTAMP, "i64", timestamp)
        header_list = self._headers(headers) if headers else None
        if header_list is not None:
            put(rd.VTYPE_HEADERS, "ptr", header_list)
        with self._lock:
            if report is not None:
                vus[opaque_at].u.ptr = self._token(report)
            error = self._lib.rd_kafka_produceva(self._live(), vus, count)
        if error:
            code = self._lib.rd_kafka_error_code(error)
            reason = self._lib.rd_kafka_error_string(error)
            self._lib.rd_kafka_error_destroy(error)
            if header_list is not None:
                self._lib.rd_kafka_headers_destroy(header_list)  # still the caller's when produce fails
            if code == rd.ERR_QUEUE_FULL:
                raise BufferError(_err2str(code))
            raise KafkaException(kafka_error(code, reason.decode(errors="replace") if reason else None))

    def _headers(self, headers: Iterable[tuple[str, str | bytes | None]]) -> int:
        lib = self._lib
        header_list = lib.rd_kafka_headers_new(8)
        for name, header_value in headers:
            content = header_value.encode() if isinstance(header_value, str) else header_value
            if content is None:
                lib.rd_kafka_header_add(header_list, name.encode(), -1, None, 0)
            else:
                lib.rd_kafka_header_add(header_list, name.encode(), -1, content, len(content))
        return int(header_list)

    # -- reports --------------------------------------------------------------------------------------

    def poll(self, timeout: float = -1) -> int:
        """Serve delivery reports, client errors, statistics and log lines; wait up to `timeout` seconds
        (-1: until an event) for the first. Returns the number of delivery reports served."""
        served = 0
        wait_ms = -1 if timeout is None or timeout < 0 else int(timeout * 1000)
        lib, queue = self._lib, self._queue
        self._live()
        while True:
            event = lib.rd_kafka_queue_poll(queue, wait_ms)
            if not event:
                break
            try:
                served += self._serve(event)
            finally:
                lib.rd_kafka_event_destroy(event)
            wait_ms = 0
        if self._callbacks:
            with self._lock:  # no produce between the check and the clearing
                if lib.rd_kafka_outq_len(self._handle) == 0:
                    self._callbacks.clear()
                    self._tokens.clear()
        return served

    def flush(self, timeout: float = -1) -> int:
        """Wait until every record is delivered or failed and its report served, up to `timeout` seconds
        (-1: no limit). Returns how many records are still outstanding."""
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        while True:
            self.poll(0)
            remaining = self._lib.rd_kafka_outq_len(self._live())
            if remaining == 0:
                self.poll(0)  # drops the delivery callbacks
                return 0
            step_ms = _FLUSH_STEP_MS
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return int(remaining)
                step_ms = max(1, min(step_ms, int(left * 1000)))
            # Blocks (without the interpreter lock) until librdkafka holds no message; reports waiting in
            # the queue keep theirs, so it is called in steps, serving them between.
            self._lib.rd_kafka_flush(self._handle, step_ms)

    def __len__(self) -> int:
        return int(self._lib.rd_kafka_outq_len(self._live()))

    def close(self) -> None:
        """Release the handle; records still queued are abandoned (flush first to deliver them)."""
        with self._lock:
            handle, self._handle = self._handle, None
            topics, self._topics = list(self._topics.values()), {}
        if handle is None:
            return
        for topic_handle in topics:
            self._lib.rd_kafka_topic_destroy(topic_handle)
        self._lib.rd_kafka_queue_destroy(self._queue)
        self._lib.rd_kafka_destroy(handle)

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            self.close()

    def _serve(self, event: int) -> int:
        lib = self._lib
        kind = lib.rd_kafka_event_type(event)
        if kind == rd.EVENT_DR:
            return self._serve_reports(event)
        if kind == rd.EVENT_ERROR:
            code = lib.rd_kafka_event_error(event)
            reason = lib.rd_kafka_event_error_string(event)
            fatal = bool(lib.rd_kafka_event_error_is_fatal(event))
            if self._error_cb is not None:
                self._error_cb(kafka_error(code, reason.decode(errors="replace") if reason else None, fatal=fatal))
        elif kind == rd.EVENT_STATS:
            stats = lib.rd_kafka_event_stats(event)
            if self._stats_cb is not None and stats:
                self._stats_cb(stats.decode())
        elif kind == rd.EVENT_LOG:
            facility, text, level = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_int()
            if lib.rd_kafka_event_log(event, ctypes.byref(facility), ctypes.byref(text), ctypes.byref(level)) == 0:
                self._log(level.value, facility.value, text.value)
        return 0

    def _serve_reports(self, event: int) -> int:
        lib = self._lib
        served = 0
        while True:
            pointer = lib.rd_kafka_event_message_next(event)
            if not pointer:
                return served
            message = pointer.contents
            served += 1
            callback = self._callbacks.get(message.private or 0)
            if callback is None:
                continue
            error = kafka_error(message.err) if message.err else None
            topic_name = lib.rd_kafka_topic_name(message.rkt) if message.rkt else b""
            delivered = DeliveredMessage(
                topic_name.decode(),
                message.partition,
                message.offset,
                ctypes.string_at(message.key, message.key_len) if message.key else None,
                ctypes.string_at(message.payload, message.len) if message.payload else None,
                error,
            )
            callback(error, delivered)

    def _log(self, level: int, facility: bytes | None, text: bytes | None) -> None:
        if self._logger is None:
            return
        name = self._lib.rd_kafka_name(self._handle) or b""
        self._logger.log(
            _LOG_LEVELS[min(max(level, 0), 7)],
            "%s [%s] %s",
            name.decode(errors="replace"),
            (facility or b"").decode(errors="replace"),
            (text or b"").decode(errors="replace"),
        )

    # -- handles --------------------------------------------------------------------------------------

    def _live(self) -> int:
        handle = self._handle
        if handle is None:
            raise RuntimeError("Producer has been closed")
        return handle

    def _topic(self, topic: str) -> int:
        handle = self._topics.get(topic)
        if handle is None:
            with self._lock:
                handle = self._topics.get(topic)
                if handle is None:
                    handle = self._lib.rd_kafka_topic_new(self._live(), topic.encode(), None)
                    if not handle:
                        raise KafkaException(kafka_error(KafkaError._INVALID_ARG, f"Cannot use topic {topic}"))
                    self._topics[topic] = handle
        return handle

    def _partitions_with_leader(self, topic: str) -> tuple[int, ...] | None:
        """The partitions of `topic` that have a leader, from a metadata request; None if it failed."""
        lib = self._lib
        found = ctypes.POINTER(rd.Metadata)()
        code = lib.rd_kafka_metadata(self._live(), 0, self._topic(topic), ctypes.byref(found), _METADATA_TIMEOUT_MS)
        if code != rd.ERR_NO_ERROR:
            log.debug("No metadata for topic %s yet: %s", topic, _err2str(code))
            return None
        try:
            metadata = found.contents
            name = topic.encode()
            for entry in metadata.topics[: metadata.topic_cnt]:
                if entry.topic == name:
                    return tuple(p.id for p in entry.partitions[: entry.partition_cnt] if p.leader >= 0)
            return ()
        finally:
            lib.rd_kafka_metadata_destroy(found)

    def _token(self, callback: Callable[[Any, Any], None]) -> int:
        """The opaque that stands for `callback` in librdkafka's messages (the caller holds the lock)."""
        key = id(callback)
        token = self._tokens.get(key)
        if token is None or self._callbacks.get(token) is not callback:
            token = len(self._callbacks) + 1
            while token in self._callbacks:
                token += 1
            self._callbacks[token] = callback
            self._tokens[key] = token
        return token


def _address(data: bytes) -> int:
    """Where the bytes of `data` are (valid while `data` lives)."""
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0
