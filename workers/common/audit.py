"""A worker's audit trail (`rest.audit`): its log stream, the JSON-lines file of `audit.log.file`, and the Kafka
topic of `audit.topic`, where every worker of a cluster writes, so the record of a change outlives the worker
that made it.

The topic is `<group.id>-audit` for a distributed worker unless `audit.topic` names another or is empty; a
standalone worker writes to one only when `audit.topic` names it. It has one partition, so records keep the
order in which they were written, and is time-retained (`audit.topic.retention.ms`, 90 days by default);
kconnect creates it at the first change if it is missing. Each record is written by an idempotent producer
and the change's answer waits until Kafka has it (at most `DELIVERY_TIMEOUT_S`; a record Kafka did not
take is logged as lost, the change stands).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.admin import TopicSpec
from connect.runtime.kafka.protocols import ProducerLike
from rest.audit.trail import AuditSink, AuditTrail, JsonLinesFile, json_line, log_sink

log = logging.getLogger(__name__)

AUDIT_LOG_FILE = "audit.log.file"
AUDIT_TOPIC = "audit.topic"
AUDIT_TOPIC_REPLICATION_FACTOR = "audit.topic.replication.factor"
AUDIT_TOPIC_RETENTION_MS = "audit.topic.retention.ms"
DELIVERY_TIMEOUT_S = 10.0


def audit_trail(
    config: WorkerConfig, clients: KafkaClients, worker_id: str, default_topic: str | None = None
) -> AuditTrail:
    """The trail of a worker: the log stream always, the file and the topic when configured."""
    sinks: list[AuditSink] = [log_sink]
    closers: list[Callable[[], None]] = []
    path = config.get(AUDIT_LOG_FILE)
    if path:
        lines = JsonLinesFile(Path(str(path)))
        sinks.append(lines)
        closers.append(lines.close)
    configured = config.get(AUDIT_TOPIC)
    topic = default_topic if configured is None else str(configured).strip()
    if topic:
        writer = AuditTopic(
            clients,
            topic,
            int(config.get(AUDIT_TOPIC_REPLICATION_FACTOR)),
            int(config.get(AUDIT_TOPIC_RETENTION_MS)),
        )
        sinks.append(writer)
        closers.append(writer.close)
    return AuditTrail(worker_id, sinks, closers)


class AuditTopic:
    """Writes each record to the audit topic, keyed by its connector (empty for the cluster's own changes).

    Made on the first record (the topic created if missing, then the producer): a worker nobody changes
    anything through costs Kafka nothing, and starts as fast as before."""

    def __init__(self, clients: KafkaClients, topic: str, replication_factor: int, retention_ms: int) -> None:
        self.topic = topic
        self._clients = clients
        self._spec = TopicSpec(
            topic, 1, replication_factor, {"cleanup.policy": "delete", "retention.ms": str(retention_ms)}
        )
        self._producer: ProducerLike | None = None
        self._lock = threading.Lock()

    def __call__(self, entry: Mapping[str, Any]) -> None:
        delivered = threading.Event()
        failure: list[str] = []

        def on_delivery(error: Any, _: Any) -> None:
            if error is not None:
                failure.append(str(error))
            delivered.set()

        value = json_line(entry).encode()
        key = str(entry.get("connector") or "").encode()
        with self._lock:
            producer = self._ready()
            producer.produce(self.topic, value=value, key=key, on_delivery=on_delivery)
        producer.flush(DELIVERY_TIMEOUT_S)
        if not delivered.is_set() or failure:
            reason = failure[0] if failure else f"not confirmed within {DELIVERY_TIMEOUT_S:g} s"
            what = f"{entry.get('id')} ({entry.get('action')})"
            log.error("Audit record %s not written to %s: %s", what, self.topic, reason)

    def close(self) -> None:
        with self._lock:
            producer = self._producer
        if producer is None:
            return
        remaining = producer.flush(DELIVERY_TIMEOUT_S)
        if remaining:
            log.error("%d audit records not written to %s before the worker stopped", remaining, self.topic)

    def _ready(self) -> ProducerLike:
        if self._producer is None:
            admin = self._clients.admin("kconnect-audit-admin")
            try:
                # An operator may have made it (and not granted kconnect the right to): write to it as it is.
                if admin.create_topics([self._spec], refusals_tolerated=True):
                    log.info("Created the audit topic %s", self.topic)
            finally:
                admin.close()
            self._producer = self._clients.internal_producer(
                "kconnect-audit-producer", {"enable.idempotence": "true", "acks": "all", "linger.ms": "0"}
            )
        return self._producer
