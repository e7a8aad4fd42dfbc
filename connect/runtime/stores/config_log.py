"""`ConfigLog`: the cluster's desired state in the single-partition compacted config topic.

Any worker may append; every worker reads the whole log in order into a `ClusterConfigState`
(`config_log_state` holds the rules, `config_records` the record formats). Each `put_*` returns once
Kafka acknowledged the write and this worker's reader applied it, so the caller's next `snapshot()`
reflects it (read-your-writes); concurrent writers are ordered by the log, the last one wins.

Threads: `put_*`, `snapshot`, `read_to_end` from any thread (REST handlers, the herder). Listeners run
on the reader thread after each applied record, only for records read after `start` returned (take
`snapshot()` after `start` for the rest); they must be quick and must not call `read_to_end`.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect.api.errors import RetriableError
from connect.runtime.domain.info import ConfigVersion, RestartRequest
from connect.runtime.domain.requester import current_requester
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores import config_records as records
from connect.runtime.stores.cluster_config import ClusterConfigState, ConfigChange
from connect.runtime.stores.config_log_state import ConfigLogState
from connect.runtime.stores.kafka_log import KafkaLogStore

log = logging.getLogger(__name__)

ConfigListener = Callable[[ConfigChange], None]
DEFAULT_WRITE_TIMEOUT_S = 30.0


class ConfigLog(KafkaLogStore):
    def __init__(
        self,
        topic: str,
        clients: KafkaClients,
        *,
        name: str = "config",
        producer_overrides: Mapping[str, str] | None = None,
        consumer_overrides: Mapping[str, str] | None = None,
    ) -> None:
        self._state = ConfigLogState()
        self._lock = threading.Lock()
        self._listeners: list[ConfigListener] = []
        self._notify = False
        KafkaLogStore.__init__(
            self,
            topic,
            clients,
            name=name,
            producer_overrides=producer_overrides,
            consumer_overrides=consumer_overrides,
        )

    def add_listener(self, listener: ConfigListener) -> None:
        self._listeners.append(listener)

    def start(self, timeout: float) -> None:
        """Read the whole config topic; listeners hear of records read after this returns."""
        self._log.start(timeout)
        with self._lock:
            self._notify = True

    def stop(self) -> None:
        self._log.stop()

    def read_to_end(self, timeout: float) -> None:
        """Barrier: returns once every record written before the call (by any worker) is applied."""
        self._log.read_to_end(timeout)

    def snapshot(self) -> ClusterConfigState:
        with self._lock:
            return self._state.snapshot()

    # -- writes (each returns the config-log offset of its last record) --------------------------

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        target_state: TargetState | None = None,
        *,
        timeout: float = DEFAULT_WRITE_TIMEOUT_S,
    ) -> int:
        """Create or update a connector; `target_state` (written first, as Kafka does) if given."""
        batch: list[tuple[bytes, bytes | None]] = []
        if target_state is not None:
            batch.append((records.target_state_key(name), records.target_state_value(target_state)))
        batch.append((records.connector_key(name), records.properties_value(config)))
        return self._write(batch, timeout, records.requester_headers(current_requester()))

    def remove_connector(self, name: str, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        batch = [(records.connector_key(name), None), (records.target_state_key(name), None)]
        return self._write(batch, timeout, records.requester_headers(current_requester()))

    def connector_history(self, name: str, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> list[ConfigVersion]:
        """Every version of the connector's config the topic still holds, oldest first (a deletion is a version
        without config). Read from the topic's start on each call: compaction decides what is left."""
        key = records.connector_key(name)
        versions: list[ConfigVersion] = []
        for record in self._log.read_from_start(lambda found: found == key, timeout):
            parsed = records.parse_object(record.value) if record.value is not None else None
            config = records.parse_properties(parsed) if parsed is not None else None
            if record.value is not None and config is None:
                continue  # unreadable, skipped as the reader skips it
            versions.append(
                ConfigVersion(
                    version=len(versions) + 1,
                    config=config,
                    timestamp_ms=record.timestamp_ms or 0,
                    user=records.requester_of(record.headers),
                )
            )
        return versions

    def put_task_configs(
        self, name: str, configs: Sequence[Mapping[str, str]], epoch: int, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S
    ) -> int:
        """Replace the connector's task configs atomically: task records 0..N-1, then the commit.

        `epoch` fences zombies: readers ignore commits and task records of a lower epoch than the
        connector's last applied commit (reset when the connector is deleted). Use a number that only
        grows while the connector exists, e.g. the config-log offset at which the writer took ownership.
        """
        batch: list[tuple[bytes, bytes | None]] = [
            (records.task_key(ConnectorTaskId(name, index)), records.properties_value(config, epoch))
            for index, config in enumerate(configs)
        ]
        batch.append((records.commit_key(name), records.commit_value(len(configs), epoch)))
        return self._write(batch, timeout)

    def put_target_state(self, name: str, state: TargetState, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        return self._write([(records.target_state_key(name), records.target_state_value(state))], timeout)

    def put_restart_request(self, request: RestartRequest, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        return self._write([(records.restart_key(request.connector), records.restart_value(request))], timeout)

    def clear_restart_request(self, name: str, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        return self._write([(records.restart_key(name), None)], timeout)

    def put_task_restart_request(self, task: ConnectorTaskId, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        value = records.task_restart_value(int(time.time() * 1000))
        return self._write([(records.task_restart_key(task), value)], timeout)

    def clear_task_restart_request(self, task: ConnectorTaskId, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        return self._write([(records.task_restart_key(task), None)], timeout)

    def put_task_count_record(self, name: str, count: int, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        """KIP-618's `tasks-fencing-<c>`: how many transactional task ids the last fenced generation had."""
        return self._write([(records.task_count_key(name), records.task_count_value(count))], timeout)

    def put_logger_level(self, namespace: str, level: str, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S) -> int:
        return self._write([(records.logger_key(namespace), records.logger_value(level))], timeout)

    def put_extension(
        self, key: str, value: Mapping[str, Any] | None, *, timeout: float = DEFAULT_WRITE_TIMEOUT_S
    ) -> int:
        """A kconnect record (`key` starts with `kconnect-`; None removes it), e.g. placement or workers."""
        encoded = None if value is None else records.extension_value(value)
        return self._write([(records.extension_key(key), encoded)], timeout)

    def _write(
        self,
        batch: Sequence[tuple[bytes, bytes | None]],
        timeout: float,
        headers: Sequence[tuple[str, bytes]] | None = None,
    ) -> int:
        deadline = time.monotonic() + timeout
        # One partition and an idempotent producer: the records land in this order, without gaps.
        futures = [self._log.send(key, value, headers=headers) for key, value in batch]
        try:
            partition, offset = futures[-1].result(timeout=max(deadline - time.monotonic(), 0.0))
            for future in futures[:-1]:
                future.result(timeout=max(deadline - time.monotonic(), 0.0))
        except concurrent.futures.TimeoutError:
            raise RetriableError(
                f"Timed out after {timeout}s waiting for Kafka to confirm a write to the config topic {self.topic}"
            ) from None
        self._log.wait_until_read(partition, offset, max(deadline - time.monotonic(), 0.0))
        return offset

    # -- reader thread ----------------------------------------------------------------------------

    def _on_record(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        with self._lock:
            changes = self._state.apply(key, value, offset)
            notify = self._notify
        if not notify:
            return
        for change in changes:
            for listener in self._listeners:
                try:
                    listener(change)
                except Exception:
                    log.exception("Config log listener failed on %s", change)
