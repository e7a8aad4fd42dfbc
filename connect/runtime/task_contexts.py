"""The runtime's side of connect.api's contexts: what connectors and tasks may ask of the worker.

- `WorkerConnectorContext` (any connector; source connectors also read offsets through it): its calls
  come from the connector's own threads, so they only hand the request to a callback.
- `WorkerSourceTaskContext`: configs and the offset reader; read-only, any thread.
- `WorkerSinkTaskContext`: rewinds, back-off, pause/resume, commit requests and the errant record
  reporter. Only the task's own thread may call it (the API says so), and the sink task runner reads
  the requests it collected between calls into the task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future

from connect.api.context import ErrantRecordReporter, OffsetReader, TransactionContext
from connect.api.errors import IllegalWorkerStateError
from connect.api.records import SinkRecord, TopicPartition
from connect.runtime.kafka_clients import SinkConsumer


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
    ) -> None:
        self._configs = dict(configs)
        self._offset_reader = offset_reader
        self._transaction_context = transaction_context

    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_reader(self) -> OffsetReader:
        return self._offset_reader

    @property
    def transaction_context(self) -> TransactionContext | None:
        return self._transaction_context


class WorkerErrantRecordReporter:
    """Hands a record the sink task could not write to the task runner's error handling."""

    def __init__(self, report: Callable[[SinkRecord, BaseException], Future[None]]) -> None:
        self._report = report

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        return self._report(record, error)


class WorkerSinkTaskContext:
    """Requests a sink task makes; the runner consumes them (`take_offsets`, `commit_requested`, ...)."""

    def __init__(
        self,
        configs: Mapping[str, str],
        consumer: SinkConsumer,
        errant_record_reporter: ErrantRecordReporter | None = None,
    ) -> None:
        self._configs = dict(configs)
        self._consumer = consumer
        self._reporter = errant_record_reporter
        self.offsets: dict[TopicPartition, int] = {}
        self.timeout_ms: int = -1
        self.commit_requested = False

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
        self.commit_requested = True

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._reporter

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
