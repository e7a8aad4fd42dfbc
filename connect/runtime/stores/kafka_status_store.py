"""`KafkaStatusStore`: connector, task and topic statuses shared by the cluster through the status topic.

Writes are Kafka Connect's status records (`status_records`): `put_connector`/`put_task` take the
generation with the status, as Kafka's `KafkaStatusBackingStore.put` takes a `TaskStatus` whose
generation the herder set; the distributed worker's status listener stamps it, so the store never asks
the group for it. Used directly as a `StatusListener`, the store stamps the fixed `generation` it was
built with. Reads are served from a cache of the whole topic, so any worker answers for all. Writes are
asynchronous and a status is visible once read back (eventual consistency, as in Kafka); `read_to_end`
gives read-your-writes when needed.

Zombie protection as in Kafka: FAILED and UNASSIGNED are written "safely", i.e. skipped when the
current status belongs to another worker with a higher generation, and a stale UNASSIGNED read from
the topic never replaces a status of a newer generation (KAFKA-12525).

Failed writes (`status_sender`), as Kafka's `send`: a write that fails with a retriable error is sent
again until Kafka takes it, unless this store wrote the same key since or the store stopped; a status is
re-sent only while it may still overwrite what the store has read (the safe-write rule, for every state:
a late re-send must not replace the status of a newer owner). The internal producer itself retries
without a delivery timeout (`kafka_log.INTERNAL_PRODUCER`); this covers the failures that reach the store
anyway, e.g. with a status producer given a `message.timeout.ms`.

Deletion: the StatusListener's `*_deletion` calls tombstone asynchronously, as Kafka does; `stored` and
`tombstone` let a cluster's housekeeper find and remove statuses nothing backs any more, and know when
Kafka has them.

Threads: listener methods from task, connector and herder threads; reads from any thread; the reader
thread applies records; re-sends on the sender's timer threads. One lock guards the cache; the sender's
lock is taken before it, never after.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from connect.api.errors import ConnectError, RetriableError
from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State, tasks_by_connector, tasks_of
from connect.runtime.domain.status import ConnectorStatusSnapshot, StatusTransitions
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores import status_records as records
from connect.runtime.stores.config_records import parse_task_id
from connect.runtime.stores.kafka_log import KafkaLogStore
from connect.runtime.stores.status_records import StatusEntry, TopicStatus
from connect.runtime.stores.status_sender import RETRY_BACKOFF_S, StatusSender

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredStatuses:
    """Every status this worker has read: connectors', tasks', and topic records by (topic, connector)."""

    connectors: Mapping[str, StatusEntry]
    tasks: Mapping[ConnectorTaskId, StatusEntry]
    topics: Mapping[tuple[str, str], TopicStatus]


class KafkaStatusStore(StatusTransitions, KafkaLogStore):
    def __init__(
        self,
        topic: str,
        clients: KafkaClients,
        worker_id: str,
        *,
        generation: int = 0,
        name: str = "status",
        producer_overrides: Mapping[str, str] | None = None,
        consumer_overrides: Mapping[str, str] | None = None,
        retry_backoff: float = RETRY_BACKOFF_S,
    ) -> None:
        """`generation` stamps the statuses of the store's own `StatusListener` calls (a writer whose
        generation never changes); `put_connector`/`put_task` write the generation they are given.
        `retry_backoff`: the first wait before a write that failed is sent again (it doubles each time)."""
        self.worker_id = worker_id
        self._generation = generation
        self._lock = threading.Lock()
        self._connectors: dict[str, StatusEntry] = {}
        self._tasks: dict[ConnectorTaskId, StatusEntry] = {}
        self._topics: dict[str, dict[str, TopicStatus]] = {}
        self._announced: set[tuple[str, str]] = set()
        KafkaLogStore.__init__(
            self,
            topic,
            clients,
            name=name,
            producer_overrides=producer_overrides,
            consumer_overrides=consumer_overrides,
        )
        self._sender = StatusSender(lambda key, value: self._log.send(key, value), backoff=retry_backoff)

    def start(self, timeout: float) -> None:
        self._log.start(timeout)

    def stop(self) -> None:
        self._sender.stop()
        self._log.stop()

    def read_to_end(self, timeout: float) -> None:
        self._log.read_to_end(timeout)

    # -- StatusListener -------------------------------------------------------------------------

    def on_connector_deletion(self, connector: str) -> None:
        with self._lock:
            tasks = [t for t in self._tasks if t.connector == connector]
            topics = list(self._topics.get(connector, ()))
            self._announced = {a for a in self._announced if a[0] != connector}
        for task in tasks:
            self._send(records.task_key(task), None)
        for topic in topics:
            self._send(records.topic_key(topic, connector), None)
        self._send(records.connector_key(connector), None)

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        self._send(records.task_key(task), None)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        connector = task.connector
        with self._lock:
            # As Kafka: a topic is announced once per connector, with the task that used it first.
            if topic in self._topics.get(connector, {}) or (connector, topic) in self._announced:
                return
            self._announced.add((connector, topic))
        status = TopicStatus(topic, connector, task.task, int(time.time() * 1000))
        self._send(records.topic_key(topic, connector), records.topic_value(status))

    # -- reads ----------------------------------------------------------------------------------

    def connector_status(self, connector: str) -> InstanceStatus | None:
        with self._lock:
            entry = self._connectors.get(connector)
            return entry.status if entry else None

    def task_status(self, task: ConnectorTaskId) -> InstanceStatus | None:
        with self._lock:
            entry = self._tasks.get(task)
            return entry.status if entry else None

    def connector_entry(self, connector: str) -> StatusEntry | None:
        with self._lock:
            return self._connectors.get(connector)

    def task_entry(self, task: ConnectorTaskId) -> StatusEntry | None:
        with self._lock:
            return self._tasks.get(task)

    def connector_entries(self, connector: str) -> tuple[StatusEntry | None, dict[int, StatusEntry]]:
        """The connector's status and its tasks' by task number, with their generations, as one read."""
        with self._lock:
            tasks = tasks_of(self._tasks, connector)
            return self._connectors.get(connector), tasks

    def all_entries(self) -> tuple[dict[str, StatusEntry], dict[str, dict[int, StatusEntry]]]:
        """Every connector's status, and its tasks' by task number, with their generations, as one read:
        `connector_entries` for all connectors at once."""
        with self._lock:
            return dict(self._connectors), tasks_by_connector(self._tasks)

    def task_statuses(self, connector: str) -> dict[int, InstanceStatus]:
        with self._lock:
            return self._task_statuses(connector)

    def connector_snapshot(self, connector: str) -> ConnectorStatusSnapshot:
        with self._lock:
            return self._snapshot(connector)

    def all(self) -> list[ConnectorStatusSnapshot]:
        """Every connector with a status or task statuses, sorted by name."""
        with self._lock:
            names = sorted(set(self._connectors) | {t.connector for t in self._tasks})
            return [self._snapshot(name) for name in names]

    def active_topics(self, connector: str) -> set[str]:
        with self._lock:
            return set(self._topics.get(connector, ()))

    def topic_statuses(self, connector: str) -> list[TopicStatus]:
        with self._lock:
            return sorted(self._topics.get(connector, {}).values(), key=lambda s: s.topic)

    def reset_active_topics(self, connector: str) -> None:
        """Tombstone the connector's topic records (visible once read back)."""
        with self._lock:
            topics = list(self._topics.get(connector, ()))
            self._announced = {a for a in self._announced if a[0] != connector}
        for topic in topics:
            self._send(records.topic_key(topic, connector), None)

    def stored(self) -> StoredStatuses:
        with self._lock:
            return StoredStatuses(
                dict(self._connectors),
                dict(self._tasks),
                {(topic, c): status for c, topics in self._topics.items() for topic, status in topics.items()},
            )

    def tombstone(
        self,
        *,
        connectors: Collection[str] = (),
        tasks: Collection[ConnectorTaskId] = (),
        topics: Collection[tuple[str, str]] = (),
        timeout: float,
    ) -> None:
        """Delete these statuses ((topic, connector) for topics); returns once Kafka acknowledged every one.

        RetriableError if Kafka did not within `timeout`; ConnectError if a write failed.
        """
        keys = [
            *(records.connector_key(c) for c in connectors),
            *(records.task_key(t) for t in tasks),
            *(records.topic_key(topic, c) for topic, c in topics),
        ]
        deadline = time.monotonic() + timeout
        futures = [self._sender.send(key, None) for key in keys]
        for key, future in zip(keys, futures, strict=True):
            try:
                future.result(timeout=max(deadline - time.monotonic(), 0.0))
            except concurrent.futures.TimeoutError:
                raise RetriableError(f"Timed out deleting the status {key.decode(errors='replace')}") from None
            except Exception as exc:
                raise ConnectError(f"Could not delete the status {key.decode(errors='replace')}: {exc}") from exc

    def _task_statuses(self, connector: str) -> dict[int, InstanceStatus]:
        return {n: e.status for n, e in tasks_of(self._tasks, connector).items()}

    def _snapshot(self, connector: str) -> ConnectorStatusSnapshot:
        entry = self._connectors.get(connector)
        return ConnectorStatusSnapshot(connector, entry.status if entry else None, self._task_statuses(connector))

    # -- writes ---------------------------------------------------------------------------------

    def put_connector(self, connector: str, entry: StatusEntry, *, safe: bool = False) -> None:
        """Write the connector's status as `entry` has it (state, worker id, trace and generation).

        `safe` (Kafka's `putSafe`): skipped when the current status belongs to another worker with a higher
        generation."""
        with self._lock:
            if safe and not self._may_overwrite(self._connectors.get(connector), entry):
                log.debug(
                    "Not writing %s for connector %s: a newer worker owns it", entry.status.state.value, connector
                )
                return
        still_valid = self._still_valid(lambda: self._connectors.get(connector), entry)
        self._send(records.connector_key(connector), records.status_value(entry), still_valid)

    def put_task(self, task: ConnectorTaskId, entry: StatusEntry, *, safe: bool = False) -> None:
        """Write the task's status as `entry` has it; `safe` as for `put_connector`."""
        with self._lock:
            if safe and not self._may_overwrite(self._tasks.get(task), entry):
                log.debug("Not writing %s for task %s: a newer worker owns it", entry.status.state.value, task)
                return
        still_valid = self._still_valid(lambda: self._tasks.get(task), entry)
        self._send(records.task_key(task), records.status_value(entry), still_valid)

    def _put_connector(self, connector: str, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        self.put_connector(connector, self._own_entry(state, trace), safe=safe)

    def _put_task(self, task: ConnectorTaskId, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        self.put_task(task, self._own_entry(state, trace), safe=safe)

    def _own_entry(self, state: State, trace: str | None) -> StatusEntry:
        return StatusEntry(InstanceStatus(state, self.worker_id, trace), self._generation)

    @staticmethod
    def _may_overwrite(current: StatusEntry | None, new: StatusEntry) -> bool:
        return (
            current is None or current.status.worker_id == new.status.worker_id or current.generation <= new.generation
        )

    def _still_valid(self, current: Callable[[], StatusEntry | None], entry: StatusEntry) -> Callable[[], bool]:
        """Whether `entry`, when sent again, may still overwrite the status read since (`current()`)."""

        def check() -> bool:
            with self._lock:
                return self._may_overwrite(current(), entry)

        return check

    def _send(self, key: bytes, value: bytes | None, still_valid: Callable[[], bool] | None = None) -> None:
        # Listener calls must never fail the task that made them: the sender retries or logs a failed write.
        self._sender.write(key, value, still_valid)

    # -- reader thread --------------------------------------------------------------------------

    def _on_record(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        text = key.decode("utf-8", errors="replace") if key is not None else ""
        if text.startswith(records.CONNECTOR_PREFIX):
            self._apply_connector(text.removeprefix(records.CONNECTOR_PREFIX), value)
        elif text.startswith(records.TASK_PREFIX):
            task = parse_task_id(text.removeprefix(records.TASK_PREFIX))
            if task is None:
                log.warning("Status record with a bad task id %s; skipped", text)
            else:
                self._apply_task(task, value)
        elif text.startswith(records.TOPIC_PREFIX):
            self._apply_topic(text.removeprefix(records.TOPIC_PREFIX), value)
        else:
            log.warning("Status record with unknown key %r at %d/%d; skipped", text, partition, offset)

    def _apply_connector(self, connector: str, value: bytes | None) -> None:
        entry = _parse(connector, value)
        with self._lock:
            if value is None:
                self._connectors.pop(connector, None)
            elif entry is not None and not _stale(self._connectors.get(connector), entry):
                self._connectors[connector] = entry

    def _apply_task(self, task: ConnectorTaskId, value: bytes | None) -> None:
        entry = _parse(str(task), value)
        with self._lock:
            if value is None:
                self._tasks.pop(task, None)
            elif entry is not None and not _stale(self._tasks.get(task), entry):
                self._tasks[task] = entry

    def _apply_topic(self, suffix: str, value: bytes | None) -> None:
        parsed_key = records.parse_topic_key(suffix)
        if parsed_key is None:
            log.warning("Status record with a bad topic key %s; skipped", suffix)
            return
        topic, connector = parsed_key
        status = records.parse_topic(value) if value is not None else None
        if value is not None and status is None:
            log.warning("Topic status record %s is not in Kafka Connect's format; skipped", suffix)
            return
        with self._lock:
            self._announced.discard((connector, topic))
            if status is None:
                topics = self._topics.get(connector)
                if topics is not None:
                    topics.pop(topic, None)
                    if not topics:
                        del self._topics[connector]
            else:
                self._topics.setdefault(connector, {})[topic] = status


def _parse(what: str, value: bytes | None) -> StatusEntry | None:
    if value is None:
        return None
    entry = records.parse_status(value)
    if entry is None:
        log.warning("Status record of %s is not in Kafka Connect's format; skipped", what)
    return entry


def _stale(current: StatusEntry | None, new: StatusEntry) -> bool:
    # A worker that lost its work late may write UNASSIGNED after the new owner's status.
    return current is not None and new.status.state is State.UNASSIGNED and current.generation > new.generation
