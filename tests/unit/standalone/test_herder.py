"""StandaloneHerder semantics (Kafka's `StandaloneHerder`) over a real Worker whose Kafka clients are fakes."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect.api.connector import SourceConnector
from connect.api.context import OffsetsToAlter
from connect.api.errors import AlreadyExistsError, ConfigError, ConnectError, NotFoundError
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.errors import BadRequestError, ForbiddenError, RequestTimeoutError
from connect.runtime.domain.info import ConnectorOffset, ConnectorType, PluginType, RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from tests.support.rest_harness import isolated_root_logger
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients
from workers.standalone import herder as herder_module
from workers.standalone.herder import StandaloneHerder

WORKER_ID = "worker-host:8083"


class IdleTask(SourceTask):
    """Polls nothing (until told to fail); records every instance so tests can count restarts."""

    started: ClassVar[list[IdleTask]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)
        self.stopped = threading.Event()
        IdleTask.started.append(self)

    def poll(self) -> list[SourceRecord] | None:
        if self.props.get("fail") == "true":
            raise RuntimeError("task failure on purpose")
        self.stopped.wait(0.02)
        return None

    def stop(self) -> None:
        self.stopped.set()


class CountingSource(SourceConnector):
    """`tasks.max` task configs carrying `setting`; `fail.task=<n>` makes task n fail; records alter_offsets."""

    altered: ClassVar[list[list[tuple[dict[str, Any], dict[str, Any] | None]]]] = []
    instances: ClassVar[list[CountingSource]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)
        self.task_count: int | None = None
        CountingSource.instances.append(self)

    def task_class(self) -> type[SourceTask]:
        return IdleTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        count = self.task_count if self.task_count is not None else max_tasks
        fail = self.props.get("fail.task")
        return [
            {"setting": self.props.get("setting", ""), "n": str(n), "fail": "true" if str(n) == fail else "false"}
            for n in range(count)
        ]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("setting", ConfigType.STRING, "", importance=Importance.LOW)
            .define("required.key", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH)
        )

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        CountingSource.altered.append([(dict(p), None if o is None else dict(o)) for p, o in offsets])
        return props.get("complete.offsets") == "true"


@pytest.fixture(autouse=True)
def _reset_recorders() -> None:
    IdleTask.started.clear()
    CountingSource.altered.clear()
    CountingSource.instances.clear()


def _worker_config(**extra: str) -> WorkerConfig:
    return WorkerConfig.from_props(
        {
            "key.converter": "StringConverter",
            "value.converter": "StringConverter",
            "offset.flush.interval.ms": "60000",
            **extra,
        }
    )


def _make_herder(config: WorkerConfig, offsets: MemoryOffsetStore | None = None) -> StandaloneHerder:
    installed = dict.fromkeys(d.cls for d in PluginRegistry.discover().plugins())
    registry = PluginRegistry.of(CountingSource, *installed)
    status = MemoryStatusStore(WORKER_ID)
    store = offsets or MemoryOffsetStore()
    worker = Worker(
        worker_id=WORKER_ID, config=config, plugins=registry, offset_store=store, status=status, clients=FakeClients()
    )
    return StandaloneHerder(worker, registry, status, store, None, WORKER_ID, config=config)


@pytest.fixture
def herder() -> Iterator[StandaloneHerder]:
    herder = _make_herder(_worker_config())
    herder.start()
    herder.mark_ready()
    yield herder
    herder.stop()


def _config(name: str = "c", **extra: str) -> dict[str, str]:
    return {"name": name, "connector.class": "CountingSource", "required.key": "x", "tasks.max": "2", **extra}


def _states(herder: StandaloneHerder, name: str = "c") -> tuple[State, list[State]]:
    status = herder.connector_status(name)
    return status.connector.state, [task.status.state for task in status.tasks]


def _wait_states(herder: StandaloneHerder, connector: State, tasks: list[State], name: str = "c") -> None:
    wait_until(lambda: _states(herder, name) == (connector, tasks), 5, f"{name} to be {connector} with {tasks}")


# -- create and read -----------------------------------------------------------------------------


def test_create_starts_the_connector_and_its_tasks(herder: StandaloneHerder) -> None:
    created, info = herder.put_connector_config("c", _config(), allow_replace=False)
    assert created
    assert info.type is ConnectorType.SOURCE
    assert info.tasks == [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)]
    assert herder.connectors() == ["c"]
    assert herder.connector_config("c") == _config()
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    status = herder.connector_status("c")
    assert status.connector.worker_id == WORKER_ID and status.type is ConnectorType.SOURCE
    tasks = herder.task_configs("c")
    assert tasks[1].config["n"] == "1"
    assert tasks[1].config["task.class"] == f"{IdleTask.__module__}.IdleTask"


def test_create_adds_the_name_and_rejects_a_different_one(herder: StandaloneHerder) -> None:
    config = _config()
    del config["name"]
    _, info = herder.put_connector_config("c", config, allow_replace=False)
    assert info.config["name"] == "c"
    with pytest.raises(BadRequestError, match=r"Connector name configuration \(other\) doesn't match"):
        herder.put_connector_config("d", _config("other"), allow_replace=False)


def test_create_validates_first(herder: StandaloneHerder) -> None:
    config = _config()
    del config["required.key"]
    with pytest.raises(ConfigError) as caught:
        herder.put_connector_config("c", config, allow_replace=False)
    assert str(caught.value).startswith("Connector configuration is invalid and contains the following 1 error(s):")
    assert "required.key" in str(caught.value)
    assert herder.connectors() == []


def test_duplicate_create_is_rejected_but_put_replaces(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    with pytest.raises(AlreadyExistsError, match=r"^Connector c already exists$"):
        herder.put_connector_config("c", _config(), allow_replace=False)
    created, _ = herder.put_connector_config("c", _config(setting="v2"), allow_replace=True)
    assert not created
    assert all(t.config["setting"] == "v2" for t in herder.task_configs("c"))


def test_unknown_names_are_not_found(herder: StandaloneHerder) -> None:
    with pytest.raises(NotFoundError, match=r"^Connector x not found$"):
        herder.connector_info("x")
    with pytest.raises(NotFoundError, match=r"^No status found for connector x$"):
        herder.connector_status("x")
    with pytest.raises(NotFoundError, match=r"^No status found for task x-0$"):
        herder.task_status(ConnectorTaskId("x", 0))
    with pytest.raises(NotFoundError, match=r"^Unknown connector: x$"):
        herder.restart_connector(RestartRequest("x", include_tasks=True))
    herder.put_connector_config("c", _config(), allow_replace=False)
    with pytest.raises(NotFoundError, match=r"^Task c-7 not found$"):
        herder.restart_task(ConnectorTaskId("c", 7))


# -- updates and reconfiguration -----------------------------------------------------------------


def test_update_restarts_tasks_even_when_their_configs_are_unchanged(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    before = len(IdleTask.started)
    # A key the connector does not pass on to its tasks: Kafka still restarts them (applied config changed).
    herder.put_connector_config("c", _config(**{"errors.log.enable": "true"}), allow_replace=True)
    wait_until(lambda: len(IdleTask.started) == before + 2, 5, "both tasks restarted")
    assert len(CountingSource.instances) == 2  # the connector instance was restarted too


def test_patch_merges_and_removes_keys(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(setting="a"), allow_replace=False)
    info = herder.patch_connector_config("c", {"setting": None, "tasks.max": "1"})
    assert "setting" not in info.config and info.config["tasks.max"] == "1"
    assert len(herder.task_configs("c")) == 1
    with pytest.raises(ConfigError):
        herder.patch_connector_config("c", {"required.key": None})
    with pytest.raises(NotFoundError):
        herder.patch_connector_config("x", {"a": "b"})


def test_connector_requested_reconfiguration_regenerates_tasks(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(**{"tasks.max": "3"}), allow_replace=False)
    _wait_states(herder, State.RUNNING, [State.RUNNING] * 3)
    connector = CountingSource.instances[-1]
    connector.task_count = 1
    connector.context.request_task_reconfiguration()
    wait_until(lambda: len(herder.task_configs("c")) == 1, 5, "one task config")
    _wait_states(herder, State.RUNNING, [State.RUNNING])


# -- lifecycle -----------------------------------------------------------------------------------


def test_pause_resume_and_stop(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    herder.pause_connector("c")
    _wait_states(herder, State.PAUSED, [State.PAUSED, State.PAUSED])
    herder.resume_connector("c")
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    herder.stop_connector("c")
    assert _states(herder, "c") == (State.STOPPED, [])
    assert herder.connector_info("c").tasks == []
    herder.resume_connector("c")
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    for operation in (herder.pause_connector, herder.resume_connector, herder.stop_connector):
        with pytest.raises(NotFoundError):
            operation("x")


@pytest.mark.parametrize(
    ("initial", "expected"), [(TargetState.PAUSED, State.PAUSED), (TargetState.STOPPED, State.STOPPED)]
)
def test_initial_state_creates_no_tasks_until_resumed(
    herder: StandaloneHerder, initial: TargetState, expected: State
) -> None:
    _, info = herder.put_connector_config("c", _config(), allow_replace=False, initial_state=initial)
    assert info.tasks == []
    assert _states(herder) == (expected, [])
    herder.resume_connector("c")
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])


def test_delete_removes_statuses(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    herder.delete_connector("c")
    assert herder.connectors() == []
    with pytest.raises(NotFoundError):
        herder.connector_status("c")
    with pytest.raises(NotFoundError):
        herder.task_status(ConnectorTaskId("c", 0))
    with pytest.raises(NotFoundError, match=r"^Connector c not found$"):
        herder.delete_connector("c")


def test_restart_only_failed_restarts_just_the_failed_task(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(**{"fail.task": "1"}), allow_replace=False)
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.FAILED])
    assert "task failure on purpose" in (herder.task_status(ConnectorTaskId("c", 1)).status.trace or "")
    started_before = len(IdleTask.started)

    plan = herder.restart_connector(RestartRequest("c", only_failed=True, include_tasks=True))
    assert plan is not None
    assert plan.connector.state is State.RUNNING
    assert [t.status.state for t in plan.tasks] == [State.RUNNING, State.RESTARTING]
    wait_until(lambda: len(IdleTask.started) == started_before + 1, 5, "one task restarted")
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.FAILED])


def test_restart_with_tasks_and_legacy_restart(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    plan = herder.restart_connector(RestartRequest("c", include_tasks=True))
    assert plan is not None and plan.connector.state is State.RESTARTING
    assert [t.status.state for t in plan.tasks] == [State.RESTARTING, State.RESTARTING]
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    assert len(CountingSource.instances) == 2
    assert herder.restart_connector(RestartRequest("c")) is None
    assert len(CountingSource.instances) == 3


# -- offsets -------------------------------------------------------------------------------------


def test_offsets_need_a_stopped_connector_and_call_the_connectors_hook() -> None:
    store = MemoryOffsetStore()
    herder = _make_herder(_worker_config(), store)
    herder.start()
    try:
        herder.put_connector_config("c", _config(), allow_replace=False)
        partition = {"file": "a"}
        with pytest.raises(BadRequestError, match=r"STOPPED state .* '/connectors/c/stop' endpoint"):
            herder.alter_connector_offsets("c", [ConnectorOffset(partition, {"pos": 1})])
        herder.pause_connector("c")
        with pytest.raises(BadRequestError, match="STOPPED state"):
            herder.reset_connector_offsets("c")

        herder.stop_connector("c")
        message = herder.alter_connector_offsets("c", [ConnectorOffset(partition, {"pos": 1})])
        assert message.startswith("The Connect framework-managed offsets for this connector have been altered")
        assert CountingSource.altered == [[(partition, {"pos": 1})]]
        assert herder.connector_offsets("c") == [ConnectorOffset(partition, {"pos": 1})]
        with pytest.raises(BadRequestError, match="primitives"):
            herder.alter_connector_offsets("c", [ConnectorOffset(partition, {"pos": [1]})])

        herder.put_connector_config("c", _config(**{"complete.offsets": "true"}), allow_replace=True)
        assert message != (reset := herder.reset_connector_offsets("c"))
        assert reset == "The offsets for this connector have been reset successfully"
        assert CountingSource.altered[-1] == [(partition, None)]
        assert herder.connector_offsets("c") == []
        with pytest.raises(NotFoundError):
            herder.connector_offsets("x")
    finally:
        herder.stop()


# -- topics, plug-ins, health --------------------------------------------------------------------


def test_topic_tracking_switches() -> None:
    herder = _make_herder(_worker_config(**{"topic.tracking.enable": "false"}))
    with pytest.raises(ForbiddenError, match=r"^Topic tracking is disabled\.$"):
        herder.connector_active_topics("c")
    with pytest.raises(ForbiddenError, match=r"^Topic tracking is disabled\.$"):
        herder.reset_connector_active_topics("c")
    herder = _make_herder(_worker_config(**{"topic.tracking.allow.reset": "false"}))
    assert herder.connector_active_topics("c") == []
    with pytest.raises(ForbiddenError, match=r"^Topic tracking reset is disabled\.$"):
        herder.reset_connector_active_topics("c")


def test_plugins_lists_connectors_or_everything(herder: StandaloneHerder) -> None:
    connectors = herder.connector_plugins(connectors_only=True)
    assert {p.type for p in connectors} == {PluginType.SOURCE, PluginType.SINK}
    assert any(p.class_name.endswith("CountingSource") for p in connectors)
    everything = {p.type for p in herder.connector_plugins(connectors_only=False)}
    assert PluginType.CONVERTER in everything and PluginType.TRANSFORMATION in everything
    assert [k.name for k in herder.connector_plugin_config("CountingSource")][:2] == ["setting", "required.key"]
    with pytest.raises(NotFoundError, match=r"^Unknown plugin Nope\.$"):
        herder.connector_plugin_config("Nope")


def test_health_is_starting_until_ready_and_unhealthy_when_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    herder = _make_herder(_worker_config())
    assert herder.health().status == "starting"
    assert herder.health().message == "Worker is still starting up."
    herder.mark_ready()
    assert herder.health().status == "healthy"
    monkeypatch.setattr(herder_module, "HEALTH_TIMEOUT_S", 0.05)
    holding, release = threading.Event(), threading.Event()

    def hold_lock() -> None:
        with herder._lock:
            holding.set()
            release.wait(5)

    blocker = threading.Thread(target=hold_lock)
    blocker.start()
    try:
        holding.wait(5)
        assert herder.health().status == "unhealthy"
    finally:
        release.set()
        blocker.join()


def test_requests_time_out_while_the_herder_is_busy() -> None:
    config = _worker_config()
    herder = _make_herder(config)
    herder._request_timeout = 0.05
    holding, release = threading.Event(), threading.Event()

    def hold_lock() -> None:
        with herder._lock:
            holding.set()
            release.wait(5)

    blocker = threading.Thread(target=hold_lock)
    blocker.start()
    try:
        holding.wait(5)
        with pytest.raises(RequestTimeoutError, match=r"^Request timed out$"):
            herder.connectors()
    finally:
        release.set()
        blocker.join()


def test_stop_shuts_every_task_down(herder: StandaloneHerder) -> None:
    herder.put_connector_config("c", _config(), allow_replace=False)
    _wait_states(herder, State.RUNNING, [State.RUNNING, State.RUNNING])
    tasks = list(IdleTask.started)
    herder.stop()
    assert all(task.stopped.is_set() for task in tasks)
    assert herder.worker.task_ids() == set()
    with pytest.raises(ConnectError):
        herder.worker.connector_task_configs("c", 1)


def test_a_cluster_scope_logger_level_is_set_on_the_single_worker() -> None:
    root = isolated_root_logger()
    config = _worker_config()
    registry = PluginRegistry.of(CountingSource)
    status, store = MemoryStatusStore(WORKER_ID), MemoryOffsetStore()
    worker = Worker(
        worker_id=WORKER_ID, config=config, plugins=registry, offset_store=store, status=status, clients=FakeClients()
    )
    loggers = LoggerLevels(root)
    herder = StandaloneHerder(worker, registry, status, store, None, WORKER_ID, config=config, loggers=loggers)

    herder.set_cluster_logger_level("app.db", "debug")

    assert loggers.level("app.db").level == "DEBUG"
    assert loggers.level("app.db").last_modified is not None
    with pytest.raises(NotFoundError, match="invalid log level 'LOUD'"):
        herder.set_cluster_logger_level("app.db", "LOUD")
