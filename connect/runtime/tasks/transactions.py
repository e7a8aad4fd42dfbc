"""Exactly-once source support (KIP-618): when a task runs transactionally, its transactional id, fencing.

Pure decisions and one blocking call, used by the Worker when it builds a source task runner and by the
distributed herder around task-config generations; any thread may call them.

- A worker runs source tasks exactly once when its `exactly.once.source.support` is `enabled` and it has
  a `group.id` and an offset store that can hand out offset records for a task's own transaction (the
  Kafka-backed store of distributed mode). Kafka Connect offers exactly-once sources in distributed mode
  only, so a standalone worker refuses connectors that require it.
- Each task's producer uses `transactional.id = <group.id>-<connector>-<task>`; `init_transactions` by a
  new instance fences the previous owner of the same task. Task-count changes leave ids nobody re-uses,
  so before a new generation of task configs starts, the herder fences the previous generation's ids
  (`fence_zombie_tasks`, with the count from the `tasks-fencing-<connector>` record) and then writes the
  new count (`ConfigLog.put_task_count_record`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Protocol

from connect.api.connector import Connector, ConnectorTransactionBoundaries, ExactlyOnceSupport, SourceConnector
from connect.api.errors import ConfigError
from connect.runtime.config.connector import ConnectorSettings
from connect.runtime.config.connector.keys import ExactlyOnceSupportLevel, TransactionBoundary
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaClients
from connect.runtime.offsets import OffsetStore
from connect.runtime.stores.kafka_offset_store import OffsetRecord

log = logging.getLogger(__name__)


class TransactionalOffsetStore(OffsetStore, Protocol):
    """An offset store whose writes an exactly-once task makes itself, inside its own transaction."""

    topic: str

    def offset_records(self, values: Mapping[bytes, bytes | None]) -> list[OffsetRecord]: ...


def transactional_id(group_id: str, task: ConnectorTaskId) -> str:
    """KIP-618's per-task transactional id: `<group.id>-<connector>-<task>`."""
    return f"{group_id}-{task.connector}-{task.task}"


def transactional_ids(group_id: str, connector: str, task_count: int) -> list[str]:
    """The transactional ids of tasks 0..task_count-1 of `connector`."""
    return [transactional_id(group_id, ConnectorTaskId(connector, task)) for task in range(task_count)]


def supports_transactions(store: OffsetStore) -> bool:
    return callable(getattr(store, "offset_records", None)) and isinstance(getattr(store, "topic", None), str)


def worker_exactly_once_enabled(config: WorkerConfig, offset_store: OffsetStore) -> bool:
    """Whether this worker runs source tasks exactly once (warns once per call when misconfigured)."""
    if config.exactly_once_source_support != "enabled":
        return False
    if config.group_id is None or not supports_transactions(offset_store):
        log.warning(
            "exactly.once.source.support=enabled has no effect here: exactly-once source support needs distributed "
            "mode (a group.id and the Kafka offsets topic)"
        )
        return False
    return True


def use_exactly_once(worker_enabled: bool, connector_class: type[Connector], settings: ConnectorSettings) -> bool:
    """Whether a source connector's tasks run exactly once; ConfigError if its config cannot be honoured.

    Every source task of an enabled worker runs exactly once (`exactly.once.support=requested` included, as
    in Kafka). `required` also needs the connector to say it is SUPPORTED, and connector-defined transaction
    boundaries need the connector to say it can define them: the herder's preflight validation checks the
    same, this guards configs that bypassed it (standalone, older configs, a worker switched to disabled).
    """
    required = settings.exactly_once_support is ExactlyOnceSupportLevel.REQUIRED
    if not worker_enabled:
        if required:
            raise ConfigError(
                f"Connector {settings.name} has exactly.once.support=required, but this worker does not run source "
                "tasks exactly once: that needs a distributed worker with exactly.once.source.support=enabled "
                "(standalone mode has no exactly-once source support, as in Kafka Connect)"
            )
        return False
    if not issubclass(connector_class, SourceConnector):
        raise ConfigError(f"{connector_class.__qualname__} is not a source connector")
    config = settings.originals
    if required:
        support = connector_class().exactly_once_support(config)
        if support is not ExactlyOnceSupport.SUPPORTED:
            answer = "does not say it does" if support is None else "says it does not"
            raise ConfigError(
                f"Connector {settings.name} has exactly.once.support=required, but the connector {answer} support "
                "exactly-once semantics with this configuration; use exactly.once.support=requested to run it anyway"
            )
    if settings.transaction_boundary is TransactionBoundary.CONNECTOR:
        answer_boundaries = connector_class().can_define_transaction_boundaries(config)
        if answer_boundaries is not ConnectorTransactionBoundaries.SUPPORTED:
            raise ConfigError(
                f"Connector {settings.name} has transaction.boundary=connector, but the connector does not support "
                "connector-defined transaction boundaries with this configuration"
            )
    if settings.offsets_storage_topic:
        log.warning(
            "Connector %s: offsets.storage.topic=%s is not supported yet; its exactly-once offsets go to the "
            "worker's offsets topic",
            settings.name,
            settings.offsets_storage_topic,
        )
    return True


def fencing_required(previous_task_count: int | None, new_task_count: int) -> bool:
    """Whether a new generation of task configs needs a fencing round first (KIP-618's rule).

    No `tasks-fencing-<connector>` record yet: no earlier generation ran exactly once, nothing to fence.
    One task before and after: the new task's own `init_transactions` fences its predecessor.
    """
    if previous_task_count is None:
        return False
    return not (previous_task_count == 1 and new_task_count == 1)


def fence_zombie_tasks(
    clients: KafkaClients,
    group_id: str,
    connector: str,
    previous_task_count: int,
    connector_config: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> None:
    """Fence every task producer of the previous generation (ids 0..previous_task_count-1), aborting what
    they left open; blocks up to `timeout`. ConnectError (RetriableError when Kafka says so) on failure."""
    ids = transactional_ids(group_id, connector, previous_task_count)
    log.info("Fencing out %d task producer(s) of connector %s", len(ids), connector)
    clients.fence_producers(ids, connector_config, timeout)
