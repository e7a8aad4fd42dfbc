"""Test doubles for connector authors: the contexts the worker hands connectors and tasks, recording what the
plug-in asked of them, so a connector's unit tests need neither a worker nor Kafka (Kafka ships the like for
Java connectors, `MockSourceTaskContext` and friends). Each satisfies its `connect.api` Protocol, and kconnect's
own connector tests use them.

    task = MySourceTask()
    task.initialize(FakeSourceTaskContext(offsets=[({"file": "a.txt"}, {"position": 42})]))
    task.start({"file": "a.txt"})
    records = task.poll()

The plug-in metrics are the worker's own implementation (its name checks included), with the values readable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from connect.api.context import (
    ConnectorContext,
    ErrantRecordReporter,
    OffsetReader,
    SinkTaskContext,
    SourceConnectorContext,
    SourceTaskContext,
    TransactionContext,
)
from connect.api.errors import IllegalWorkerStateError
from connect.api.metrics import PluginMetrics
from connect.api.records import SinkRecord, SourceOffset, SourcePartition, SourceRecord, TopicPartition
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.windows import Windows

StoredOffsets = Iterable[tuple[SourcePartition, SourceOffset]]


def _key(partition: SourcePartition) -> str:
    # Partitions are dicts (unhashable): keyed by their JSON form, so equal dicts find the same offset.
    return json.dumps(partition, sort_keys=True, default=str)


class FakeOffsetReader:
    """The source offsets stored for a connector, as the worker's offset store answers them; `asked` lists the
    partitions the plug-in asked about, in order."""

    def __init__(self, stored: StoredOffsets = ()) -> None:
        self._stored: dict[str, SourceOffset] = {}
        self.asked: list[SourcePartition] = []
        for partition, offset in stored:
            self.store(partition, offset)

    def store(self, partition: SourcePartition, offset: SourceOffset) -> None:
        self._stored[_key(partition)] = offset

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        self.asked.append(partition)
        return self._stored.get(_key(partition))

    def offsets(self, partitions: Iterable[SourcePartition]) -> list[tuple[SourcePartition, SourceOffset | None]]:
        wanted = list(partitions)
        self.asked.extend(wanted)
        return [(partition, self._stored.get(_key(partition))) for partition in wanted]


class FakePluginMetrics(TaskPluginMetrics):
    """A task's plug-in metrics (KIP-877) as the worker keeps them, with what `/metrics` would serve readable."""

    def __init__(self) -> None:
        super().__init__((), Windows())

    def values(self) -> dict[str, Any]:
        """The task's own counters (`name-total`), recorders (`name-avg`, `name-max`) and gauges by name."""
        groups = [group for group in self.groups() if group.domain == "connect"]
        return dict(groups[0].values) if groups else {}

    def tagged_values(self, domain: str, type_name: str, tags: Mapping[str, str]) -> dict[str, Any]:
        """The values of one `tagged` set (`name-count`, `name-rate`, `name`, `name-min`, ...)."""
        wanted = (type_name, tuple(tags.items()), domain)
        for group in self.groups():
            if (group.group, group.tags, group.domain) == wanted:
                return dict(group.values)
        return {}


class FakeTransactionContext:
    """For a source task whose connector defines transaction boundaries: the commits and aborts it asked for
    (`None` for "the current batch")."""

    def __init__(self) -> None:
        self.commits: list[SourceRecord | None] = []
        self.aborts: list[SourceRecord | None] = []

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self.commits.append(record)

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self.aborts.append(record)


class FakeSourceTaskContext:
    """What `SourceTask.initialize` gets: the task's configs, stored offsets, plug-in metrics, and the problems
    it reported (`report_problem`)."""

    def __init__(
        self,
        configs: Mapping[str, str] | None = None,
        offsets: StoredOffsets = (),
        transaction_context: FakeTransactionContext | None = None,
    ) -> None:
        self._configs = dict(configs or {})
        self._offset_reader = FakeOffsetReader(offsets)
        self._transaction_context = transaction_context
        self._plugin_metrics = FakePluginMetrics()
        self.problems: list[str] = []

    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_reader(self) -> FakeOffsetReader:
        return self._offset_reader

    @property
    def transaction_context(self) -> FakeTransactionContext | None:
        return self._transaction_context

    @property
    def plugin_metrics(self) -> FakePluginMetrics:
        return self._plugin_metrics

    def report_problem(self, message: str) -> None:
        self.problems.append(message)


class FakeErrantRecordReporter:
    """Takes the records a sink task could not handle, as the worker's error handling would with
    `errors.tolerance=all`; `reported` holds them with their errors."""

    def __init__(self) -> None:
        self.reported: list[tuple[SinkRecord, BaseException]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.reported.append((record, error))
        done: Future[None] = Future()
        done.set_result(None)
        return done


class FakeSinkTaskContext:
    """What `SinkTask.initialize` gets: its configs and assignment; records the offsets the task asked to
    rewind to (`requested_offsets`), its back-off (`timeout_ms`), paused partitions and commit requests."""

    def __init__(
        self,
        configs: Mapping[str, str] | None = None,
        assignment: Iterable[TopicPartition] = (),
        errant_record_reporter: FakeErrantRecordReporter | None = None,
    ) -> None:
        self._configs = dict(configs or {})
        self.assigned: set[TopicPartition] = set(assignment)
        self.requested_offsets: dict[TopicPartition, int] = {}
        self.timeout_ms: int | None = None
        self.paused: set[TopicPartition] = set()
        self.commit_requests = 0
        self._errant_record_reporter = errant_record_reporter
        self._plugin_metrics = FakePluginMetrics()

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.requested_offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions, "pause")
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions, "resume")
        self.paused.difference_update(partitions)

    def _check_assigned(self, partitions: tuple[TopicPartition, ...], action: str) -> None:
        unassigned = [partition for partition in partitions if partition not in self.assigned]
        if unassigned:  # as the worker's context refuses it
            raise IllegalWorkerStateError(
                f"SinkTasks may not {action} partitions that are not currently assigned to them: {unassigned}"
            )

    def request_commit(self) -> None:
        self.commit_requests += 1

    @property
    def errant_record_reporter(self) -> FakeErrantRecordReporter | None:
        return self._errant_record_reporter

    @property
    def plugin_metrics(self) -> FakePluginMetrics:
        return self._plugin_metrics


class FakeConnectorContext:
    """What `Connector.initialize` gets: counts `request_task_reconfiguration` calls and keeps the errors the
    connector raised through `raise_error`."""

    def __init__(self) -> None:
        self.reconfiguration_requests = 0
        self.errors: list[Exception] = []

    def request_task_reconfiguration(self) -> None:
        self.reconfiguration_requests += 1

    def raise_error(self, error: Exception) -> None:
        self.errors.append(error)


class FakeSourceConnectorContext(FakeConnectorContext):
    """What `SourceConnector.initialize` gets: adds the stored source offsets."""

    def __init__(self, offsets: StoredOffsets = ()) -> None:
        super().__init__()
        self._offset_reader = FakeOffsetReader(offsets)

    @property
    def offset_reader(self) -> FakeOffsetReader:
        return self._offset_reader


if TYPE_CHECKING:  # mypy (make lint) checks that each fake satisfies its connect.api Protocol
    _offset_reader: OffsetReader = FakeOffsetReader()
    _plugin_metrics: PluginMetrics = FakePluginMetrics()
    _transaction_context: TransactionContext = FakeTransactionContext()
    _source_task_context: SourceTaskContext = FakeSourceTaskContext()
    _errant_record_reporter: ErrantRecordReporter = FakeErrantRecordReporter()
    _sink_task_context: SinkTaskContext = FakeSinkTaskContext()
    _connector_context: ConnectorContext = FakeConnectorContext()
    _source_connector_context: SourceConnectorContext = FakeSourceConnectorContext()
