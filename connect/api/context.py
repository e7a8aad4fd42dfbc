"""What the runtime offers connectors and tasks while they run.

These are Protocols: the runtime implements them, connectors only call them. Each context is handed
to the plug-in in `initialize(context)` before `start`, and stays valid until `stop` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

from connect.api.metrics import PluginMetrics
from connect.api.records import SinkRecord, SourceOffset, SourcePartition, SourceRecord, TopicPartition


@dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where Kafka stored an acknowledged source record (given to `SourceTask.commit_record`)."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None


class OffsetReader(Protocol):
    """Reads the source offsets stored for this connector (all of its tasks share one namespace)."""

    def offset(self, partition: SourcePartition) -> SourceOffset | None: ...

    def offsets(self, partitions: Iterable[SourcePartition]) -> list[tuple[SourcePartition, SourceOffset | None]]: ...


class ConnectorContext(Protocol):
    """Given to every `Connector`."""

    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call `task_configs` again, e.g. because the set of inputs changed."""
        ...

    def raise_error(self, error: Exception) -> None:
        """Fail the connector from a background thread of its own; its status becomes FAILED."""
        ...


class SourceConnectorContext(ConnectorContext, Protocol):
    """Given to every `SourceConnector`: adds access to the stored source offsets."""

    @property
    def offset_reader(self) -> OffsetReader: ...


class TransactionContext(Protocol):
    """For source tasks whose connector defines transaction boundaries (`transaction.boundary=connector`)."""

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit after `record` has been sent (or after the current batch when None)."""
        ...

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort the transaction that `record` (or the current batch when None) belongs to."""
        ...


class SourceTaskContext(Protocol):
    """Given to every `SourceTask`."""

    def configs(self) -> Mapping[str, str]: ...

    @property
    def offset_reader(self) -> OffsetReader: ...

    @property
    def transaction_context(self) -> TransactionContext | None: ...

    @property
    def plugin_metrics(self) -> PluginMetrics:
        """The task's own metrics, served by `/metrics` (KIP-877)."""
        ...

    def report_problem(self, message: str) -> None:
        """Show `message` as the task's status trace while it keeps RUNNING (`GET /connectors/{c}/status`, the
        dashboard, `kconnect ctl status`): a problem an operator must see that does not stop the task, such as
        records lost at the source. It stays until the task restarts or reports another."""
        ...


class ErrantRecordReporter(Protocol):
    """Sends a record a sink task could not handle to the error handling (log, dead letter queue)."""

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]: ...


class SinkTaskContext(Protocol):
    """Given to every `SinkTask`; only call it from within the task's own methods (the task thread),
    except `request_commit`, which any thread may call."""

    def configs(self) -> Mapping[str, str]: ...

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Rewind (or advance) the consumer: the next record delivered for each partition is at that offset."""
        ...

    def timeout(self, timeout_ms: int) -> None:
        """Back-off before the runtime redelivers a batch after `put` raised a RetriableError."""
        ...

    def assignment(self) -> set[TopicPartition]: ...

    def pause(self, *partitions: TopicPartition) -> None: ...

    def resume(self, *partitions: TopicPartition) -> None: ...

    def request_commit(self) -> None:
        """Ask for an offset commit (flush/pre_commit) as soon as possible. Thread-safe: a task's own
        background thread (e.g. one that finished writing a file) may call it; the runtime wakes up
        and runs `pre_commit` on the task thread within a fraction of a second."""
        ...

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None: ...

    @property
    def plugin_metrics(self) -> PluginMetrics:
        """The task's own metrics, served by `/metrics` (KIP-877)."""
        ...


OffsetsToAlter = Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
"""(source partition, new source offset or None to reset) pairs, as given to `SourceConnector.alter_offsets`."""
