"""Run a connector and its tasks in process, through the worker's real record path, with or without a broker.

`ConnectorHarness` is a worker of one process (the runtime's `Worker`: converters, transformations and
predicates, error handling with `errors.tolerance` and the dead letter queue, offset commits, the task
contexts) over Kafka in memory (`MemoryKafka`) or over a real cluster (`bootstrap_servers`). A test starts a
connector with the config a user would post, feeds a sink's topics or reads what a source wrote, and checks
statuses and committed offsets, as Kafka's `EmbeddedConnectCluster` lets a Java connector's tests do:

    with ConnectorHarness() as harness:
        harness.start("lines", {"connector.class": "FileStreamSource", "file": path, "topic": "lines"})
        assert harness.read_values("lines", 3) == ["a", "b", "c"]

Source offsets are kept in memory for the harness's lifetime, so `restart` resumes a connector where it
left off. Exactly-once source support is off (it needs a distributed worker and a broker).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from connect.api.converter import Converter
from connect.api.data import Schema
from connect.api.errors import ConfigError, ConnectError
from connect.api.records import SourceOffset, SourcePartition, TopicPartition
from connect.runtime.config.worker_config import KEY_CONVERTER, VALUE_CONVERTER, WorkerConfig
from connect.runtime.domain.info import ConfigInfos
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaClients, TopicSpec
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.validation.connector import validate_connector_config
from connect.runtime.worker import Worker
from connect.testing.memory_kafka import MemoryKafka, MemoryKafkaClients, TopicRecord

T = TypeVar("T")

HARNESS_WORKER_DEFAULTS: Mapping[str, str] = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    # Short enough that a test sees source offsets and sink commits without waiting a minute (Kafka: 60 s).
    "offset.flush.interval.ms": "200",
    "task.shutdown.graceful.timeout.ms": "5000",
}
"""Worker settings the harness starts from; the `worker_props` given to it win."""


@dataclass(frozen=True)
class ConnectorState:
    """A connector's status in the harness: its state and each task's (`State` names such as "RUNNING"),
    with the traces of failed ones."""

    connector: str
    tasks: dict[int, str] = field(default_factory=dict)
    traces: dict[str, str] = field(default_factory=dict)
    """By instance: "connector" or the task's number as text."""


class ConnectorHarness:
    """One in-process worker running the connectors a test starts (see the module docstring)."""

    def __init__(
        self,
        worker_props: Mapping[str, str] | None = None,
        *,
        bootstrap_servers: str | None = None,
        plugins: PluginRegistry | None = None,
        default_partitions: int = 1,
    ) -> None:
        """`worker_props`: worker settings over `HARNESS_WORKER_DEFAULTS` (converters, `errors.*` defaults,
        `producer.*`/`consumer.*`). `bootstrap_servers`: a real cluster; without it Kafka is in memory, with
        `default_partitions` partitions per new topic. `plugins`: by default every installed plug-in (entry
        points); connector classes are also found by their dotted names."""
        props = {**HARNESS_WORKER_DEFAULTS, **(worker_props or {})}
        if bootstrap_servers is not None:
            props["bootstrap.servers"] = bootstrap_servers
        self.config = WorkerConfig.from_props(props)
        self.plugins = plugins if plugins is not None else PluginRegistry.discover()
        self.kafka: MemoryKafka | None = None if bootstrap_servers else MemoryKafka(default_partitions)
        self.clients: KafkaClients = (
            KafkaClients.from_worker_config(self.config)
            if self.kafka is None
            else MemoryKafkaClients(self.kafka, self.config)
        )
        self.offsets = MemoryOffsetStore()
        self.status = MemoryStatusStore("harness")
        self.worker = Worker(
            worker_id="harness",
            config=self.config,
            plugins=self.plugins,
            offset_store=self.offsets,
            status=self.status,
            clients=self.clients,
        )
        self.worker.start()
        self._configs: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._closed = False

    # -- connectors --------------------------------------------------------------------------------------

    def validate(self, config: Mapping[str, str]) -> ConfigInfos:
        """What `PUT /connector-plugins/{class}/config/validate` answers for `config`."""
        return validate_connector_config(
            config,
            self.plugins,
            topic_creation_enabled=self.config.topic_creation_enable,
            override_policy=self.config.client_config_override_policy,
        )

    def start(self, name: str, config: Mapping[str, object]) -> None:
        """Validate `config` as the REST API would (ConfigError listing every problem), start the connector
        and its tasks, and return once they were started (a task's failure shows in `state`). Values may be
        given as Python values: a class (`connector.class`) by its dotted name, numbers and booleans as
        their config text."""
        resolved = {key: _config_text(value) for key, value in config.items()}
        resolved = {"name": name, "tasks.max": "1", **resolved}
        problems = [
            f"{info.value.name}: {message}"
            for info in self.validate(resolved).configs
            if info.value is not None
            for message in info.value.errors
        ]
        if problems:
            raise ConfigError(f"Connector {name} has an invalid config: " + "; ".join(problems))
        with self._lock:
            if name in self._configs:
                raise ConnectError(f"Connector {name} is already running in this harness")
            self._configs[name] = resolved
        try:
            self.worker.start_connector(name, resolved, TargetState.STARTED, self._reconfigure_later)
        except BaseException:
            with self._lock:
                self._configs.pop(name, None)  # not started: the name may be used again
            raise
        self._start_tasks(name)

    def _start_tasks(self, name: str) -> None:
        config = self._configs[name]
        state = self.status.connector_status(name)
        if state is not None and state.state is State.FAILED:
            return
        task_configs = self.worker.connector_task_configs(name, int(config.get("tasks.max", "1")))
        for index, task_config in enumerate(task_configs):
            self.worker.start_task(ConnectorTaskId(name, index), config, task_config, TargetState.STARTED)

    def _reconfigure_later(self, name: str) -> None:
        """The connector asked for new task configs: restart its tasks off the connector's thread."""
        threading.Thread(target=self._restart_tasks, args=(name,), name=f"harness-reconfigure-{name}").start()

    def _restart_tasks(self, name: str) -> None:
        with self._lock:
            if self._closed or name not in self._configs:
                return
            self._stop_tasks(name)
            self._start_tasks(name)

    def _stop_tasks(self, name: str) -> None:
        self.worker.stop_tasks([task for task in self.worker.task_ids() if task.connector == name])

    def stop(self, name: str) -> None:
        """Stop the connector and its tasks (each within `task.shutdown.graceful.timeout.ms`); its offsets stay."""
        with self._lock:
            if self._configs.pop(name, None) is None:
                raise ConnectError(f"Connector {name} is not running in this harness")
            self._stop_tasks(name)
            self.worker.stop_connector(name)

    def restart(self, name: str) -> None:
        """Stop the connector and its tasks and start them again with the same config: a source resumes from
        the offsets it committed, a sink from its group's."""
        config = self._configs[name]
        self.stop(name)
        self.start(name, config)

    def state(self, name: str) -> ConnectorState:
        connector = self.status.connector_status(name)
        if connector is None:
            raise ConnectError(f"Connector {name} was never started in this harness")
        traces = {"connector": connector.trace} if connector.trace else {}
        tasks = {}
        for index, status in sorted(self.status.task_statuses(name).items()):
            tasks[index] = status.state.value
            if status.trace:
                traces[str(index)] = status.trace
        return ConnectorState(connector.state.value, tasks, traces)

    def wait_for_running(self, name: str, timeout: float = 30.0) -> ConnectorState:
        """Wait until the connector and every task of it run; ConnectError with their traces if one failed."""

        def running() -> ConnectorState | None:
            state = self.state(name)
            if "FAILED" in (state.connector, *state.tasks.values()):
                raise ConnectError(f"Connector {name} failed: {state}")
            started = state.tasks and all(task == "RUNNING" for task in state.tasks.values())
            return state if state.connector == "RUNNING" and started else None

        return wait_for(running, timeout, f"connector {name} and its tasks to run")

    # -- topics --------------------------------------------------------------------------------------------

    def create_topic(self, topic: str, partitions: int = 1) -> None:
        if self.kafka is not None:
            self.kafka.create_topic(topic, partitions)
            return
        admin = self.clients.admin("kconnect-harness-admin")
        try:
            admin.create_topics([TopicSpec(topic, partitions)])
        finally:
            admin.close()

    def send_bytes(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        *,
        partition: int = -1,
        headers: Mapping[str, bytes | None] | None = None,
    ) -> None:
        """Write one record as given (bytes a converter made, or anything a sink must cope with)."""
        pairs = list((headers or {}).items())
        if self.kafka is not None:
            self.kafka.append(topic, value, key, partition, tuple(pairs))
            return
        producer = self.clients.producer(ConnectorTaskId("kconnect-harness", 0), {})
        producer.produce(topic, value, key, partition, headers=pairs or None)
        if producer.flush(30):
            raise ConnectError(f"Could not write a record to {topic} within 30 s")

    def send(
        self,
        topic: str,
        value: Any,
        key: Any = None,
        *,
        value_schema: Schema | None = None,
        key_schema: Schema | None = None,
        partition: int = -1,
        headers: Mapping[str, bytes | None] | None = None,
        converters: Mapping[str, str] | None = None,
    ) -> None:
        """Write one record converted as a source task's would be: by the worker's converters, or those
        `converters` names (`{"value.converter": "StringConverter"}`)."""
        key_converter, value_converter = self.converters(converters)
        key_bytes = key_converter.from_connect_data(topic, key_schema, key)
        value_bytes = value_converter.from_connect_data(topic, value_schema, value)
        self.send_bytes(topic, value_bytes, key_bytes, partition=partition, headers=headers)

    def read(self, topic: str, count: int, timeout: float = 30.0) -> list[TopicRecord]:
        """Wait until `topic` holds at least `count` records; every record read, partition by partition."""
        if self.kafka is not None:
            kafka = self.kafka

            def enough() -> list[TopicRecord] | None:
                records = kafka.records(topic)
                return records if len(records) >= count else None

            return wait_for(enough, timeout, f"{count} record(s) in {topic}")
        return self._read_from_broker(topic, count, timeout)

    def _read_from_broker(self, topic: str, count: int, timeout: float) -> list[TopicRecord]:
        group = f"kconnect-harness-reader-{uuid.uuid4().hex}"
        consumer = self.clients.internal_consumer(group, {"group.id": group, "auto.offset.reset": "earliest"})
        consumer.subscribe([topic], None, _NoRebalanceWork())
        records: list[TopicRecord] = []
        deadline = time.monotonic() + timeout
        try:
            while len(records) < count:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{len(records)} of {count} record(s) in {topic} after {timeout} s")
                records.extend(TopicRecord.of(message) for message in consumer.consume(1000, 0.5))
        finally:
            consumer.close()
        return sorted(records, key=lambda r: (r.partition, r.offset))

    def read_values(
        self, topic: str, count: int, timeout: float = 30.0, *, converters: Mapping[str, str] | None = None
    ) -> list[Any]:
        """The values of `read(topic, count)`, converted back as a sink task's would be (`converters` as in
        `send`)."""
        _, value_converter = self.converters(converters)
        return [value_converter.to_connect_data(topic, r.value).value for r in self.read(topic, count, timeout)]

    def converters(self, overrides: Mapping[str, str] | None = None) -> tuple[Converter, Converter]:
        """The key and value converters of the worker's settings, or of `overrides` where it names them."""
        props = {**self.config.originals, **(overrides or {})}
        made = []
        for key, is_key in ((KEY_CONVERTER, True), (VALUE_CONVERTER, False)):
            converter = self.plugins.converter_class(props[key])()
            prefix = key + "."
            converter.configure({k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}, is_key)
            made.append(converter)
        return made[0], made[1]

    # -- offsets -------------------------------------------------------------------------------------------

    def source_offset(self, name: str, partition: SourcePartition) -> SourceOffset | None:
        """The offset the worker committed for a source connector's `partition`."""
        return OffsetStorageReader(name, self.offsets).offset(partition)

    def committed_offsets(self, name: str) -> dict[TopicPartition, int]:
        """A sink connector's committed offsets (its consumer group's: the next record to read)."""
        group = self.clients.consumer_config(ConnectorTaskId(name, 0), self._configs.get(name, {}))["group.id"]
        if self.kafka is not None:
            return self.kafka.committed(group)
        admin = self.clients.admin("kconnect-harness-admin")
        try:
            offsets: dict[TopicPartition, int] = admin.consumer_group_offsets(group)
            return offsets
        finally:
            admin.close()

    # -- lifetime ----------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every connector and task, and the worker."""
        with self._lock:
            self._closed = True
            self._configs.clear()
        self.worker.stop()

    def __enter__(self) -> ConnectorHarness:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def wait_for(condition: Callable[[], T | None], timeout: float, what: str, interval: float = 0.05) -> T:
    """Poll `condition` until it returns something other than None or False; TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result is not None and result is not False:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"Timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def _config_text(value: object) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _NoRebalanceWork:
    """The harness's reader starts every partition from the beginning and keeps nothing."""

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        pass

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        pass
