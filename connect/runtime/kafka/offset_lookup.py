"""End offsets through the admin client's ListOffsets, without its busy loop while a leader is down.

librdkafka's admin ListOffsets resends a request whose leader refuses connections at once, with no
back-off, until the request times out (as Java's admin did before KAFKA-9621): on three local brokers
with one killed, one call kept most of a core busy until the controller moved the dead broker's
leaderships (`docs/distributed.md`, "Leaving, dying, freezing"). A worker reads several internal logs
to their end at once, so every worker of a cluster burnt both cores, starved the surviving brokers,
and lost its group membership again and again.

So each attempt first refreshes the metadata (which also mends a stale leader epoch after a broker
restart), asks only about partitions whose leader accepts a TCP connection, and keeps the answers it
got; the other partitions wait with a back-off until the metadata names a leader that is up. Blocks
the calling thread.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import IsolationLevel, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from connect.api.errors import RetriableError
from connect.runtime.kafka.errors import connect_error, error_code

log = logging.getLogger(__name__)

PartitionKey = tuple[str, int]

METADATA_REFRESH_TIMEOUT_S = 5.0
FIRST_RETRY_BACKOFF_S = 0.05
MAX_RETRY_BACKOFF_S = 1.0
CONNECT_PROBE_TIMEOUT_S = 1.0
_LATEST = OffsetSpec.latest()  # type: ignore[no-untyped-call]

# Errors no retry can mend: give up at once instead of at the deadline.
PERMANENT_ERRORS = frozenset(
    {
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError.GROUP_AUTHORIZATION_FAILED,
        KafkaError.INVALID_REQUEST,
        KafkaError.UNSUPPORTED_VERSION,
        KafkaError._INVALID_ARG,
        KafkaError._UNSUPPORTED_FEATURE,
    }
)


def end_offsets(
    admin: AdminClient,
    partitions: Sequence[PartitionKey],
    what: str,
    deadline: float,
    *,
    isolation_level: IsolationLevel | None = None,
    stopping: Callable[[], bool] | None = None,
) -> dict[PartitionKey, int]:
    """The end offset of every (topic, partition), asked until `deadline` (`time.monotonic()`).

    Raises a ConnectError at once for an error no retry mends; a RetriableError starting with `what`
    and saying what it waited for at the deadline, or once `stopping()`.
    """
    known: dict[PartitionKey, int] = {}
    backoff = FIRST_RETRY_BACKOFF_S
    started = time.monotonic()
    reason = "no answer yet"
    while True:
        pending = [key for key in partitions if key not in known]
        remaining = max(deadline - time.monotonic(), FIRST_RETRY_BACKOFF_S)
        leaders = _leader_addresses(admin, min(remaining, METADATA_REFRESH_TIMEOUT_S))
        if leaders is None:
            reason = "no metadata from the cluster"
            ask = []
        else:
            up = _probe_once()
            ask = [key for key in pending if up(leaders.get(key))]
            if len(ask) < len(pending):
                reason = f"the leaders of {len(pending) - len(ask)} partition(s) are down or unknown"
        if ask:
            reason = _ask(admin, ask, isolation_level, remaining, what, known) or reason
        if len(known) == len(partitions):
            return known
        if time.monotonic() >= deadline or (stopping is not None and stopping()):
            raise RetriableError(f"{what}: timed out after {time.monotonic() - started:.1f} s ({reason})")
        log.debug("%s: %s; retrying", what, reason)
        time.sleep(max(min(backoff, deadline - time.monotonic()), 0.0))
        backoff = min(backoff * 2, MAX_RETRY_BACKOFF_S)


def _ask(
    admin: AdminClient,
    ask: Sequence[PartitionKey],
    isolation_level: IsolationLevel | None,
    timeout: float,
    what: str,
    known: dict[PartitionKey, int],
) -> str | None:
    """One ListOffsets for `ask`; adds the answers to `known` and returns the last error's text, if any."""
    options: dict[str, Any] = {"request_timeout": timeout}
    if isolation_level is not None:
        options["isolation_level"] = isolation_level
    request = {KafkaTopicPartition(topic, partition): _LATEST for topic, partition in ask}
    error: str | None = None
    try:
        futures = admin.list_offsets(request, **options)
    except KafkaException as exc:
        return _retriable_text(exc, what)
    for tp, future in futures.items():
        try:
            known[(tp.topic, tp.partition)] = int(future.result(timeout=timeout + 1.0).offset)
        except KafkaException as exc:
            error = _retriable_text(exc, what)
        except TimeoutError:
            error = f"no answer within {timeout:.1f} s"
    return error


def _retriable_text(exc: KafkaException, what: str) -> str:
    """What went wrong, to retry; raised at once as a ConnectError if no retry can mend it."""
    error = connect_error(exc, what)
    fatal = bool(exc.args) and isinstance(exc.args[0], KafkaError) and exc.args[0].fatal()
    if error_code(exc) in PERMANENT_ERRORS or fatal:
        raise error from exc
    return str(error).removeprefix(f"{what}: ")


def _leader_addresses(admin: AdminClient, timeout: float) -> dict[PartitionKey, tuple[str, int] | None] | None:
    """Each partition's leader as (host, port), None without a leader; None if metadata is unavailable.

    All topics are listed: asking for one by name makes a broker with auto.create.topics.enable create it.
    """
    try:
        metadata = admin.list_topics(timeout=max(timeout, 0.1))
    except KafkaException:
        return None
    brokers = {broker_id: (str(broker.host), int(broker.port)) for broker_id, broker in metadata.brokers.items()}
    return {
        (name, partition_id): brokers.get(partition.leader)
        for name, topic in metadata.topics.items()
        for partition_id, partition in topic.partitions.items()
    }


def leader_accepts_connections(address: tuple[str, int]) -> bool:
    """Whether a broker address accepts a TCP connection.

    Only a refused connection makes librdkafka spin; an address that does not answer at all makes the
    probe wait up to CONNECT_PROBE_TIMEOUT_S, and is then left out of this attempt too.
    """
    try:
        with socket.create_connection(address, timeout=CONNECT_PROBE_TIMEOUT_S):
            return True
    except OSError:
        return False


def _probe_once() -> Callable[[tuple[str, int] | None], bool]:
    """`leader_accepts_connections`, asked once per address for one attempt; a missing leader is down."""
    seen: dict[tuple[str, int], bool] = {}

    def up(address: tuple[str, int] | None) -> bool:
        if address is None:
            return False
        if address not in seen:
            seen[address] = leader_accepts_connections(address)
        return seen[address]

    return up
