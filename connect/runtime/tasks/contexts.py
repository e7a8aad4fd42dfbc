"""The runtime's side of connect.api's contexts: what connectors and tasks may ask of the worker.

- `WorkerConnectorContext` (any connector; source connectors also read offsets through it): its calls
  come from the connector's own threads, so they only hand the request to a callback.
- `WorkerSourceTaskContext`: configs and the offset reader; read-only, any thread.
- `WorkerTransactionContext`: an exactly-once source task's commit/abort requests
  (`transaction.boundary=connector`); the task calls it from any of its threads, the runner's task thread
  takes the requests, so a lock guards them.
- `WorkerSinkTaskContext`: rewinds, back-off, pause/resume, commit requests and the errant record
  reporter. Only the task's own thread may call it (the API says so), and the sink task runner reads
  the requests it collected between calls into the task. The exception is `request_commit`, which any
  thread may call (a sink's own writer thread, say): it sets an Event and wakes the runner's loop.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future

from connect.api.context import ErrantRecordReporter, OffsetReader, TransactionContext
from connect.api.errors import IllegalWorkerStateError
from connect.api.metrics import PluginMetrics
from connect.api.records import SinkRecord, SourceRecord, TopicPartition
from connect.runtime.kafka import SinkConsumer
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.windows import Windows


class WorkerConnectorContext:
    """Given to a connector; `offset_reader` is set for source connectors only."""

    def __init__(
        self,
        name: str,
        on_reconfigure: Callable[[str], None],
        on_error: Callable[[BaseException], None],
        offset_reader: OffsetReader | None = None,
    ) -> None:
        self.name = name
        self._on_reconfigure = on_reconfigure
        self._on_error = on_error
        self._offset_reader = offset_reader

    def request_task_reconfiguration(self) -> None:
        self._on_reconfigure(self.name)

    def raise_error(self, error: Exception) -> None:
        self._on_error(error)

    @property
    def offset_reader(self) -> OffsetReader:
        if self._offset_reader is None:
            raise IllegalWorkerStateError(f"Connector {self.name} is not a source connector: it has no offsets")
        return self._offset_reader


class WorkerSourceTaskContext:
    def __init__(
        self,
        configs: Mapping[str, str],
        offset_reader: OffsetReader,
        transaction_context: TransactionContext | None = None,
        *,
        plugin_metrics: PluginMetrics | None = None,
        report_problem: Callable[[str], None] | None = None,
    ) -> None:
        self._configs = dict(configs)
        self._offset_reader = offset_reader
        self._transaction_context = transaction_context
        self._plugin_metrics = plugin_metrics or TaskPluginMetrics((), Windows())
        self._report_problem = report_problem

    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_reader(self) -> OffsetReader:
        return self._offset_reader

    @property
    def transaction_context(self) -> TransactionContext | None:
        return self._transaction_context

    @property
    def plugin_metrics(self) -> PluginMetrics:
        return self._plugin_metrics

    def report_problem(self, message: str) -> None:
        if self._report_problem is not None:
            self._report_problem(message)


class TransactionRequest(enum.Enum):
    COMMIT = "commit"
    ABORT = "abort"


class WorkerTransactionContext:
    """What a source task asked of its transactions (KIP-618 connector-defined boundaries).

    Requests for a record name that very object (the one `poll` returned, before transforms): the runner
    ends the transaction right after sending it. Asking for both a commit and an abort of one record or
    batch is a bug in the task, which fails it (as in Kafka: the task might swallow an exception raised
    here, and guessing could lose data).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._batch_commit = False
        self._batch_abort = False
        # Keyed by identity (records may hold unhashable values); the record is kept so its id stays unique.
        self._records: dict[int, tuple[SourceRecord, TransactionRequest]] = {}
        self._conflicts: list[str] = []

    # -- the task's side ---------------------------------------------------------------------------

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self._request(record, TransactionRequest.COMMIT)

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self._request(record, TransactionRequest.ABORT)

    def _request(self, record: SourceRecord | None, request: TransactionRequest) -> None:
        with self._lock:
            if record is None:
                if request is TransactionRequest.COMMIT:
                    self._batch_commit = True
                else:
                    self._batch_abort = True
                if self._batch_commit and self._batch_abort:
                    self._conflicts.append("Connector requested both commit and abort of same batch")
                return
            previous = self._records.get(id(record))
            if previous is not None and previous[0] is record and previous[1] is not request:
                self._conflicts.append(
                    f"Connector requested both commit and abort of same record (topic {record.topic})"
                )
            self._records[id(record)] = (record, request)

    # -- the runner's side (task thread) -----------------------------------------------------------

    @property
    def has_record_requests(self) -> bool:
        with self._lock:
            return bool(self._records)

    def take_record_request(self, record: SourceRecord) -> TransactionRequest | None:
        """The request made for `record` (and forget it); IllegalWorkerStateError if the task asked both."""
        with self._lock:
            self._raise_conflicts()
            entry = self._records.get(id(record))
            if entry is None or entry[0] is not record:
                return None
            del self._records[id(record)]
            return entry[1]

    def take_batch_request(self) -> TransactionRequest | None:
        """A request for the current batch (and forget it); IllegalWorkerStateError if the task asked both."""
        with self._lock:
            self._raise_conflicts()
            request = (
                TransactionRequest.ABORT
                if self._batch_abort
                else TransactionRequest.COMMIT
                if self._batch_commit
                else None
            )
            self._batch_commit = self._batch_abort = False
            return request

    def _raise_conflicts(self) -> None:
        if self._conflicts:
            conflicts, self._conflicts = self._conflicts, []
            raise IllegalWorkerStateError("; ".join(conflicts))


class WorkerErrantRecordReporter:
    """Hands a record the sink task could not write to the task runner's error handling."""

    def __init__(self, report: Callable[[SinkRecord, BaseException], Future[None]]) -> None:
        self._report = report

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        return self._report(record, error)


class WorkerSinkTaskContext:
    """Requests a sink task makes; the runner consumes them (`take_offsets`, `take_commit_request`, ...).

    `on_commit_request` is called (on the requesting thread) after every `request_commit`, for the
    runner to wake its loop.
    """

    def __init__(
        self,
        configs: Mapping[str, str],
        consumer: SinkConsumer,
        errant_record_reporter: ErrantRecordReporter | None = None,
        on_commit_request: Callable[[], None] | None = None,
        *,
        plugin_metrics: PluginMetrics | None = None,
    ) -> None:
        self._configs = dict(configs)
        self._consumer = consumer
        self._reporter = errant_record_reporter
        self._plugin_metrics = plugin_metrics or TaskPluginMetrics((), Windows())
        self.offsets: dict[TopicPartition, int] = {}
        self.timeout_ms: int = -1
        self._commit_requested = threading.Event()
        self._on_commit_request = on_commit_request

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return self._consumer.assignment()

    def pause(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions, "pause")
        self._consumer.pause(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions, "resume")
        self._consumer.resume(partitions)

    def request_commit(self) -> None:
        """Thread-safe (unlike the rest of the context): any thread may ask for a commit."""
        self._commit_requested.set()
        if self._on_commit_request is not None:
            self._on_commit_request()

    @property
    def commit_requested(self) -> bool:
        return self._commit_requested.is_set()

    def take_commit_request(self) -> bool:
        """Whether a commit was requested since the last call (and forget it). Cleared before the caller
        commits, so a request made meanwhile is served by this commit or by the next one, never lost."""
        if not self._commit_requested.is_set():
            return False
        self._commit_requested.clear()
        return True

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._reporter

    @property
    def plugin_metrics(self) -> PluginMetrics:
        return self._plugin_metrics

    def take_offsets(self) -> dict[TopicPartition, int]:
        """The rewinds requested since the last call (and forget them)."""
        offsets, self.offsets = self.offsets, {}
        return offsets

    def _check_assigned(self, partitions: tuple[TopicPartition, ...], action: str) -> None:
        assigned = self._consumer.assignment()
        unassigned = [p for p in partitions if p not in assigned]
        if unassigned:
            raise IllegalWorkerStateError(
                f"SinkTasks may not {action} partitions that are not currently assigned to them: {unassigned}"
            )
