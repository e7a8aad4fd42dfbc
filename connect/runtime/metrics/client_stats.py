"""`ClientStatistics`: the Kafka clients of this process as Kafka's client metrics, from librdkafka's
statistics (`statistics.interval.ms`; every client the factory builds reports them to `CLIENT_STATISTICS`).

librdkafka calls back with its statistics as JSON from the thread that polls the client, every
`STATISTICS_INTERVAL_MS`; only the few figures Kafka's `consumer-metrics`/`producer-metrics` groups
share with it are kept: connections up, bytes and requests sent, bytes and responses received
(librdkafka's `tx_bytes`, `rx_bytes`, `tx`, `rx`, and its brokers in state `UP`). A client that stops
reporting (closed) is forgotten after a few intervals.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import orjson

from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.metrics.windows import Clock

log = logging.getLogger(__name__)

STATISTICS_INTERVAL_MS = 10_000
# Broker entries that are connections of their own; `logical` (the group coordinator's alias) and
# `internal` ones are not.
_REAL_BROKER_SOURCES = frozenset({"configured", "learned"})
_CLIENT_TYPES = frozenset({"consumer", "producer"})


class ClientStatistics:
    def __init__(
        self, clock: Clock = time.monotonic, forget_after_s: float = 3 * STATISTICS_INTERVAL_MS / 1000
    ) -> None:
        self._clock = clock
        self._forget_after_s = forget_after_s
        self._lock = threading.Lock()
        self._latest: dict[str, tuple[float, MetricGroup]] = {}

    def on_stats(self, payload: str) -> None:
        """librdkafka's `stats_cb`."""
        try:
            stats = orjson.loads(payload)
            group = client_group(stats)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            log.debug("Unreadable client statistics ignored", exc_info=True)
            return
        if group is None:
            return
        with self._lock:
            self._latest[str(stats["name"])] = (self._clock(), group)

    def groups(self) -> list[MetricGroup]:
        oldest = self._clock() - self._forget_after_s
        with self._lock:
            for name in [n for n, (at, _) in self._latest.items() if at < oldest]:
                del self._latest[name]
            latest = [group for _, group in self._latest.values()]
        # Clients may share a client.id (Kafka allows it): their figures add up under it.
        by_key: dict[tuple[str, str, tuple[tuple[str, str], ...]], MetricGroup] = {}
        for group in latest:
            known = by_key.setdefault(group.key, MetricGroup(group.group, group.tags, {}, group.domain))
            for name, value in group.values.items():
                known.values[name] = int(known.values.get(name, 0)) + int(value)
        return list(by_key.values())


def client_group(stats: dict[str, Any]) -> MetricGroup | None:
    """Kafka's `<type>-metrics,client-id=<id>` figures from one librdkafka statistics object."""
    client_type = stats["type"]
    if client_type not in _CLIENT_TYPES:
        return None
    brokers = stats.get("brokers") or {}
    connections = sum(
        1 for b in brokers.values() if b.get("state") == "UP" and b.get("source", "learned") in _REAL_BROKER_SOURCES
    )
    values = {
        "connection-count": connections,
        "outgoing-byte-total": int(stats["tx_bytes"]),
        "incoming-byte-total": int(stats["rx_bytes"]),
        "request-total": int(stats["tx"]),
        "response-total": int(stats["rx"]),
    }
    tags = (("client-id", str(stats["client_id"])),)
    return MetricGroup(f"{client_type}-metrics", tags, dict(values), domain=client_type)


CLIENT_STATISTICS = ClientStatistics()
"""This process's clients (a task process has its own)."""
