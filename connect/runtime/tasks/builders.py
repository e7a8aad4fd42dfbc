"""Task builders: everything one task runner needs, assembled from the worker and connector configs.

As Kafka's `Worker.TaskBuilder` and its `SinkTaskBuilder`, `SourceTaskBuilder` and
`ExactlyOnceSourceTaskBuilder`: the `Worker` picks the builder for a task, and the builder makes the
task's `RecordPipeline` (converters, transformation chain, error handler with its reporters), its Kafka
clients and its runner. Converters follow Kafka's rule: the connector's `key.converter` etc. win, and the
converter's own settings come from whichever config named the class.

Everything a build has made is closed again if a later step fails (the task then reports FAILED).
Called on the herder's thread, one build at a time per task.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from connect.api.connector import Connector, SinkConnector
from connect.api.converter import Converter, HeaderConverter
from connect.api.errors import ConfigError
from connect.api.records import SinkRecord, SourceRecord
from connect.api.task import SinkTask, SourceTask, Task
from connect.api.transform import R
from connect.runtime.config.connector import ConnectorSettings, topic_creation_rules, uses_topic_creation
from connect.runtime.config.connector.keys import CONNECTOR_CLASS_CONFIG
from connect.runtime.config.worker_config import HEADER_CONVERTER, KEY_CONVERTER, VALUE_CONVERTER, WorkerConfig
from connect.runtime.domain.info import ConnectorType
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import KafkaClients, TopicSpec, confirms_runs
from connect.runtime.offsets import OffsetStore
from connect.runtime.pipeline.closing import close_quietly
from connect.runtime.pipeline.error_handling import DeadLetterQueueReporter, ErrorHandler, ErrorReporter, LogReporter
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.pipeline.record_transformer import RecordTransformer
from connect.runtime.pipeline.source_batches import sends_columns
from connect.runtime.pipeline.transformation_chain import TransformationChain
from connect.runtime.plugins import PluginRegistry
from connect.runtime.tasks.topic_creation import TopicCreation
from connect.runtime.tasks.transactions import TransactionalOffsetStore, transactional_id, use_exactly_once
from connect.runtime.tasks.worker_eos_source_task import WorkerEosSourceTask
from connect.runtime.tasks.worker_sink_task import WorkerSinkTask
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from connect.runtime.tasks.worker_task import WorkerTask

log = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"


@dataclass(frozen=True)
class WorkerResources:
    """What the worker lends every task it builds."""

    config: WorkerConfig
    plugins: PluginRegistry
    clients: KafkaClients
    offset_store: OffsetStore
    status: StatusListener
    on_topic_used: Callable[[ConnectorTaskId, str], None]


@dataclass(frozen=True)
class TaskSpec:
    """One task to build: its plug-in instance, its configs and the state it starts in."""

    task_id: ConnectorTaskId
    task: Task
    connector_class: type[Connector]
    connector_config: Mapping[str, str]
    task_config: Mapping[str, str]
    settings: ConnectorSettings
    target_state: TargetState
    ownership_check: Callable[[], None] | None = None
    """Exactly-once source tasks only: see `WorkerEosSourceTask`'s."""


class TaskBuilder(abc.ABC):
    def __init__(self, resources: WorkerResources) -> None:
        self.resources = resources

    def build(self, spec: TaskSpec) -> WorkerTask:
        """The task's runner, not started yet; what was made on the way is closed if a step fails."""
        with contextlib.ExitStack() as on_failure:
            runner = self._build(spec, on_failure)
            on_failure.pop_all()
            return runner

    @abc.abstractmethod
    def _build(self, spec: TaskSpec, on_failure: contextlib.ExitStack) -> WorkerTask:
        """Make the runner; register what must be closed should a later step fail with `on_failure`."""

    # -- the record pipeline --------------------------------------------------------------------

    def _pipeline(
        self,
        spec: TaskSpec,
        on_failure: contextlib.ExitStack,
        dead_letter_queue: Callable[[], DeadLetterQueueReporter | None] = lambda: None,
    ) -> RecordPipeline[R]:
        """Converters and chain first (a bad one fails before anything is created in Kafka), then the error
        handler with the log reporter and, if `dead_letter_queue` makes one, the dead letter queue."""
        owner = f"Task {spec.task_id}"
        key_converter = self._converter(spec.settings, KEY_CONVERTER, is_key=True)
        on_failure.callback(close_quietly, [key_converter], owner)
        value_converter = self._converter(spec.settings, VALUE_CONVERTER, is_key=False)
        on_failure.callback(close_quietly, [value_converter], owner)
        header_converter = self._header_converter(spec.settings)
        on_failure.callback(close_quietly, [header_converter], owner)
        transformer: RecordTransformer[R] | None = self._transformer(spec.connector_config)
        on_failure.callback(close_quietly, [transformer], owner)
        reporters: list[ErrorReporter] = [LogReporter(spec.settings.errors)]
        dlq = dead_letter_queue()
        if dlq is not None:
            reporters.append(dlq)
        errors = ErrorHandler(spec.settings.errors, spec.task_id, reporters)
        on_failure.callback(errors.close)
        return RecordPipeline(key_converter, value_converter, header_converter, transformer, errors)

    def _converter(self, settings: ConnectorSettings, key: str, *, is_key: bool) -> Converter:
        config = self.resources.config
        name = settings.key_converter if is_key else settings.value_converter
        if name:
            props = settings.with_prefix(key + ".")
        else:
            name = config.key_converter if is_key else config.value_converter
            props = config.converter_props(key)
        converter = self.resources.plugins.converter_class(name)()
        converter.configure(props, is_key)
        return converter

    def _header_converter(self, settings: ConnectorSettings) -> HeaderConverter:
        config = self.resources.config
        if settings.header_converter:
            name, props = settings.header_converter, settings.with_prefix(HEADER_CONVERTER + ".")
        else:
            name, props = config.header_converter, config.converter_props(HEADER_CONVERTER)
        converter = self.resources.plugins.header_converter_class(name)()
        converter.configure(props)
        return converter

    def _transformer(self, connector_config: Mapping[str, str]) -> TransformationChain | None:
        """The connector's chain; None without `transforms`, so the runners can skip it entirely."""
        chain = TransformationChain.from_config(connector_config, self.resources.plugins)
        return chain if len(chain) else None

    def _on_topic_used(self, task_id: ConnectorTaskId) -> Callable[[str], None]:
        return functools.partial(self.resources.on_topic_used, task_id)


class SinkTaskBuilder(TaskBuilder):
    def _build(self, spec: TaskSpec, on_failure: contextlib.ExitStack) -> WorkerTask:
        task = cast(SinkTask, spec.task)
        dead_letter_queue = functools.partial(self._dead_letter_queue, spec)
        pipeline: RecordPipeline[SinkRecord] = self._pipeline(spec, on_failure, dead_letter_queue)
        topics = spec.task_config.get(SinkTask.TOPICS_CONFIG) or ",".join(spec.settings.topics)
        regex = spec.task_config.get(SinkTask.TOPICS_REGEX_CONFIG) or spec.settings.topics_regex
        consumer = self.resources.clients.sink_consumer(spec.task_id, spec.connector_config)
        return WorkerSinkTask(
            spec.task_id,
            task,
            spec.task_config,
            self.resources.status,
            spec.target_state,
            consumer=consumer,
            topics=[t.strip() for t in topics.split(",") if t.strip()],
            topics_regex=regex or None,
            pipeline=pipeline,
            offset_flush_interval_ms=self.resources.config.offset_flush_interval_ms,
            on_topic_used=self._on_topic_used(spec.task_id),
            metrics_windows=self.resources.config.metrics_windows,
        )

    def _dead_letter_queue(self, spec: TaskSpec) -> DeadLetterQueueReporter | None:
        """`errors.deadletterqueue.topic.name`'s reporter, creating the topic if it is missing."""
        settings = spec.settings.errors
        topic = settings.dlq_topic
        if not topic:
            return None
        task_id = spec.task_id
        clients = self.resources.clients
        admin = clients.admin(f"connector-dlq-adminclient-{task_id.connector}", spec.connector_config)
        try:
            if admin.partition_count(topic) is None:
                replication = settings.dlq_replication_factor
                brokers = admin.broker_count()
                if 0 < brokers < replication:
                    # Kafka would fail the task here; a one-broker dev cluster is the common case.
                    log.warning(
                        "Task %s: creating dead letter queue %s with replication factor %d, not %d: "
                        "the cluster has %d broker(s)",
                        task_id,
                        topic,
                        brokers,
                        replication,
                        brokers,
                    )
                    replication = brokers
                admin.create_topics([TopicSpec(topic, 1, replication)])
        finally:
            admin.close()
        producer = clients.dlq_producer(task_id, spec.connector_config)
        return DeadLetterQueueReporter(settings, task_id.connector, producer)


class SourceTaskBuilder(TaskBuilder):
    def _build(self, spec: TaskSpec, on_failure: contextlib.ExitStack) -> WorkerTask:
        task = cast(SourceTask, spec.task)
        pipeline: RecordPipeline[SourceRecord] = self._pipeline(spec, on_failure)
        topic_creation = self._topic_creation(spec)
        on_failure.callback(close_quietly, [topic_creation], f"Task {spec.task_id}")
        return self._runner(spec, task, pipeline, topic_creation)

    def _runner(
        self,
        spec: TaskSpec,
        task: SourceTask,
        pipeline: RecordPipeline[SourceRecord],
        topic_creation: TopicCreation | None,
    ) -> WorkerSourceTask:
        config = self.resources.config
        clients = self.resources.clients
        failure_reports_only = not WorkerSourceTask.needs_record_reports(type(task))
        batch_calls = (
            failure_reports_only
            and WorkerSourceTask.polls_batches(type(task))
            and sends_columns(pipeline, needs_record_reports=False)
        )
        # A task that takes each batch's Kafka offsets, under an error policy that tolerates no failure, is
        # served faster by a gap-less producer (`kafka.gapless`); a tolerated failure must stay one record's.
        gapless = WorkerSourceTask.commits_batches(type(task)) and not pipeline.errors.tolerates_all
        producer = clients.producer(
            spec.task_id,
            spec.connector_config,
            failure_reports_only=failure_reports_only,
            batch_calls=batch_calls,
            gapless=gapless,
        )
        record_producer = functools.partial(
            clients.producer, spec.task_id, spec.connector_config, failure_reports_only=failure_reports_only
        )
        runs_confirmed = gapless and confirms_runs(
            clients.source_producer_config(spec.task_id, spec.connector_config, gapless=True)
        )
        return WorkerSourceTask(
            spec.task_id,
            task,
            spec.task_config,
            self.resources.status,
            spec.target_state,
            producer=producer,
            pipeline=pipeline,
            offset_store=self.resources.offset_store,
            offset_flush_interval_ms=config.offset_flush_interval_ms,
            offset_flush_timeout_ms=config.offset_flush_timeout_ms,
            on_topic_used=self._on_topic_used(spec.task_id),
            topic_creation=topic_creation,
            metrics_windows=config.metrics_windows,
            record_producer=record_producer if batch_calls else None,
            runs_confirmed_by_last=runs_confirmed,
        )

    def _topic_creation(self, spec: TaskSpec) -> TopicCreation | None:
        """The task's topic creation (KIP-158), if the worker allows it and the config asks for it;
        ConfigError if its `topic.creation.*` keys are invalid (the task fails, as in Kafka)."""
        if not self.resources.config.topic_creation_enable or not uses_topic_creation(spec.connector_config):
            return None
        rules = topic_creation_rules(spec.connector_config)
        admin = self.resources.clients.admin(f"connector-adminclient-{spec.task_id}", spec.connector_config)
        return TopicCreation(rules, admin)


class ExactlyOnceSourceTaskBuilder(SourceTaskBuilder):
    """Source tasks of a worker with `exactly.once.source.support=enabled` (KIP-618)."""

    def _runner(
        self,
        spec: TaskSpec,
        task: SourceTask,
        pipeline: RecordPipeline[SourceRecord],
        topic_creation: TopicCreation | None,
    ) -> WorkerSourceTask:
        config = self.resources.config
        task_id = spec.task_id
        producer = self.resources.clients.transactional_producer(
            task_id,
            spec.connector_config,
            transactional_id(config.group_id or "", task_id),
            failure_reports_only=not WorkerSourceTask.needs_record_reports(type(task)),
        )
        return WorkerEosSourceTask(
            task_id,
            task,
            spec.task_config,
            self.resources.status,
            spec.target_state,
            producer=producer,
            pipeline=pipeline,
            # The worker picks this builder only when its offset store is transactional.
            offset_store=cast(TransactionalOffsetStore, self.resources.offset_store),
            transaction_boundary=spec.settings.transaction_boundary,
            transaction_boundary_interval_ms=spec.settings.transaction_boundary_interval_ms
            or config.offset_flush_interval_ms,
            ownership_check=spec.ownership_check,
            on_topic_used=self._on_topic_used(task_id),
            topic_creation=topic_creation,
            metrics_windows=config.metrics_windows,
        )


class TaskBuilders:
    """A worker's three builders, and which one a task needs."""

    def __init__(self, resources: WorkerResources, exactly_once_source: bool) -> None:
        """`exactly_once_source`: the worker runs source tasks exactly once where their connector allows."""
        self.resources = resources
        self.exactly_once_source = exactly_once_source
        self._sink = SinkTaskBuilder(resources)
        self._source = SourceTaskBuilder(resources)
        self._exactly_once = ExactlyOnceSourceTaskBuilder(resources)

    def spec(
        self,
        task_id: ConnectorTaskId,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target_state: TargetState,
        ownership_check: Callable[[], None] | None = None,
    ) -> TaskSpec:
        """The task's plug-in instance and parsed settings; ConfigError if the connector config is invalid."""
        plugins = self.resources.plugins
        connector_class = plugins.connector_class(connector_config.get(CONNECTOR_CLASS_CONFIG, ""))
        connector_type = ConnectorType.SINK if issubclass(connector_class, SinkConnector) else ConnectorType.SOURCE
        settings = ConnectorSettings.parse(connector_config, connector_type)
        task = task_class_of(connector_class, task_config.get(TASK_CLASS_CONFIG))()
        return TaskSpec(
            task_id, task, connector_class, connector_config, task_config, settings, target_state, ownership_check
        )

    def runs_exactly_once(self, spec: TaskSpec) -> bool:
        return isinstance(spec.task, SourceTask) and use_exactly_once(
            self.exactly_once_source, spec.connector_class, spec.settings
        )

    def build(self, spec: TaskSpec) -> WorkerTask:
        """The task's runner, not started yet (see `TaskBuilder.build`)."""
        if isinstance(spec.task, SinkTask):
            return self._sink.build(spec)
        if not isinstance(spec.task, SourceTask):
            raise ConfigError(f"{type(spec.task).__qualname__} is neither a SourceTask nor a SinkTask")
        if self.runs_exactly_once(spec):
            return self._exactly_once.build(spec)
        return self._source.build(spec)


def task_class_of(connector_class: type[Connector], task_class_name: str | None) -> type[Task]:
    """The task class a task config names, as its connector reports it (no import by name needed)."""
    task_class = connector_class().task_class()
    if task_class_name and task_class_name != f"{task_class.__module__}.{task_class.__qualname__}":
        log.warning(
            "Task config names task class %s but %s reports %s; using the latter",
            task_class_name,
            connector_class.__qualname__,
            task_class.__qualname__,
        )
    return task_class
