"""ctypes access to the librdkafka that confluent_kafka itself loaded, for the calls its Python API lacks.

confluent_kafka's `Producer.produce` takes one message per call, and its argument parsing and the
per-message state it keeps cost about as much as librdkafka's own work; `rd_kafka_produce_batch` takes
an array of messages in one call (docs/performance.md, "Sources"). This module declares only what
`batch_producer` uses: a producer handle, its main queue read through the event API (no C callbacks
into Python), `rd_kafka_produce_batch`, `rd_kafka_produceva` and `rd_kafka_metadata` (a topic's
partitions and their leaders).

The library is the one already mapped into this process by `confluent_kafka.cimpl` (read from
/proc/self/maps), so both speak the same librdkafka version; `load()` returns None where it cannot be
found (not Linux, a build of confluent_kafka linked statically), and callers then use confluent_kafka.
"""

from __future__ import annotations

import ctypes
import functools
import logging
from pathlib import Path

import confluent_kafka

log = logging.getLogger(__name__)

# rdkafka.h
PRODUCER = 0
MSG_F_COPY = 0x2
PARTITION_UA = -1
ERR_NO_ERROR = 0
ERR_QUEUE_FULL = -184
EVENT_DR = 0x1
EVENT_LOG = 0x4
EVENT_ERROR = 0x8
EVENT_STATS = 0x40
CONF_OK = 0
# rd_kafka_vtype_t
VTYPE_TOPIC = 1
VTYPE_PARTITION = 3
VTYPE_VALUE = 4
VTYPE_KEY = 5
VTYPE_OPAQUE = 6
VTYPE_MSGFLAGS = 7
VTYPE_TIMESTAMP = 8
VTYPE_HEADERS = 10

_c_void_p = ctypes.c_void_p
_c_char_p = ctypes.c_char_p
_c_int = ctypes.c_int


class Message(ctypes.Structure):
    """rd_kafka_message_t."""

    _fields_ = (
        ("err", ctypes.c_int),
        ("rkt", _c_void_p),
        ("partition", ctypes.c_int32),
        ("payload", _c_void_p),
        ("len", ctypes.c_size_t),
        ("key", _c_void_p),
        ("key_len", ctypes.c_size_t),
        ("offset", ctypes.c_int64),
        ("private", _c_void_p),
    )


MESSAGE_WORDS = ctypes.sizeof(Message) // 8
"""rd_kafka_message_t in 64-bit words (9 on LP64): `batch_producer` fills arrays of them word by word."""
PAYLOAD_WORD, LEN_WORD, KEY_WORD, KEY_LEN_WORD, PRIVATE_WORD = (
    getattr(Message, name).offset // 8 for name in ("payload", "len", "key", "key_len", "private")
)


class _Mem(ctypes.Structure):
    _fields_ = (("ptr", _c_void_p), ("size", ctypes.c_size_t))


class _VUnion(ctypes.Union):
    _fields_ = (
        ("cstr", _c_char_p),
        ("i32", ctypes.c_int32),
        ("i64", ctypes.c_int64),
        ("mem", _Mem),
        ("ptr", _c_void_p),
        ("_pad", ctypes.c_char * 64),
    )


class VU(ctypes.Structure):
    """rd_kafka_vu_t: one typed argument of `rd_kafka_produceva`."""

    _fields_ = (("vtype", _c_int), ("u", _VUnion))


class MetadataPartition(ctypes.Structure):
    """rd_kafka_metadata_partition_t."""

    _fields_ = (
        ("id", ctypes.c_int32),
        ("err", _c_int),
        ("leader", ctypes.c_int32),
        ("replica_cnt", _c_int),
        ("replicas", ctypes.POINTER(ctypes.c_int32)),
        ("isr_cnt", _c_int),
        ("isrs", ctypes.POINTER(ctypes.c_int32)),
    )


class MetadataTopic(ctypes.Structure):
    """rd_kafka_metadata_topic_t."""

    _fields_ = (
        ("topic", _c_char_p),
        ("partition_cnt", _c_int),
        ("partitions", ctypes.POINTER(MetadataPartition)),
        ("err", _c_int),
    )


class Metadata(ctypes.Structure):
    """rd_kafka_metadata_t (its brokers are not read, so they stay an opaque pointer)."""

    _fields_ = (
        ("broker_cnt", _c_int),
        ("brokers", _c_void_p),
        ("topic_cnt", _c_int),
        ("topics", ctypes.POINTER(MetadataTopic)),
        ("orig_broker_id", ctypes.c_int32),
        ("orig_broker_name", _c_char_p),
    )


def _declare(lib: ctypes.CDLL) -> None:
    signatures: dict[str, tuple[object, list[object]]] = {
        "rd_kafka_version": (_c_int, []),
        "rd_kafka_conf_new": (_c_void_p, []),
        "rd_kafka_conf_destroy": (None, [_c_void_p]),
        "rd_kafka_conf_set": (_c_int, [_c_void_p, _c_char_p, _c_char_p, _c_char_p, ctypes.c_size_t]),
        "rd_kafka_conf_set_events": (None, [_c_void_p, _c_int]),
        "rd_kafka_new": (_c_void_p, [_c_int, _c_void_p, _c_char_p, ctypes.c_size_t]),
        "rd_kafka_destroy": (None, [_c_void_p]),
        "rd_kafka_topic_new": (_c_void_p, [_c_void_p, _c_char_p, _c_void_p]),
        "rd_kafka_topic_destroy": (None, [_c_void_p]),
        "rd_kafka_topic_name": (_c_char_p, [_c_void_p]),
        "rd_kafka_produce_batch": (_c_int, [_c_void_p, ctypes.c_int32, _c_int, _c_void_p, _c_int]),
        "rd_kafka_produceva": (_c_void_p, [_c_void_p, _c_void_p, ctypes.c_size_t]),
        "rd_kafka_error_code": (_c_int, [_c_void_p]),
        "rd_kafka_error_string": (_c_char_p, [_c_void_p]),
        "rd_kafka_error_destroy": (None, [_c_void_p]),
        "rd_kafka_headers_new": (_c_void_p, [ctypes.c_size_t]),
        "rd_kafka_headers_destroy": (None, [_c_void_p]),
        "rd_kafka_header_add": (_c_int, [_c_void_p, _c_char_p, ctypes.c_ssize_t, _c_void_p, ctypes.c_ssize_t]),
        "rd_kafka_outq_len": (_c_int, [_c_void_p]),
        "rd_kafka_flush": (_c_int, [_c_void_p, _c_int]),
        "rd_kafka_queue_get_main": (_c_void_p, [_c_void_p]),
        "rd_kafka_queue_destroy": (None, [_c_void_p]),
        "rd_kafka_queue_poll": (_c_void_p, [_c_void_p, _c_int]),
        "rd_kafka_set_log_queue": (_c_int, [_c_void_p, _c_void_p]),
        "rd_kafka_event_type": (_c_int, [_c_void_p]),
        "rd_kafka_event_destroy": (None, [_c_void_p]),
        "rd_kafka_event_message_next": (ctypes.POINTER(Message), [_c_void_p]),
        "rd_kafka_event_error": (_c_int, [_c_void_p]),
        "rd_kafka_event_error_string": (_c_char_p, [_c_void_p]),
        "rd_kafka_event_error_is_fatal": (_c_int, [_c_void_p]),
        "rd_kafka_event_log": (
            _c_int,
            [_c_void_p, ctypes.POINTER(_c_char_p), ctypes.POINTER(_c_char_p), ctypes.POINTER(_c_int)],
        ),
        "rd_kafka_event_stats": (_c_char_p, [_c_void_p]),
        "rd_kafka_err2str": (_c_char_p, [_c_int]),
        "rd_kafka_name": (_c_char_p, [_c_void_p]),
        "rd_kafka_metadata": (_c_int, [_c_void_p, _c_int, _c_void_p, ctypes.POINTER(ctypes.POINTER(Metadata)), _c_int]),
        "rd_kafka_metadata_destroy": (None, [ctypes.POINTER(Metadata)]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def _mapped_librdkafka() -> Path | None:
    """The librdkafka shared object mapped into this process (confluent_kafka's, once it is imported)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    for line in maps.splitlines():
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if "/librdkafka" in path and ".so" in path:
            return Path(path)
    return None


@functools.cache
def load() -> ctypes.CDLL | None:
    """confluent_kafka's librdkafka, declared; None when it cannot be found or is another version."""
    path = _mapped_librdkafka()
    if path is None:
        log.info("librdkafka's batch calls are not used: its library was not found among this process's mappings")
        return None
    lib = ctypes.CDLL(str(path))
    _declare(lib)
    expected = confluent_kafka.libversion()[1]
    if lib.rd_kafka_version() != expected:
        log.info("librdkafka's batch calls are not used: %s is not the version confluent_kafka uses", path)
        return None
    return lib
