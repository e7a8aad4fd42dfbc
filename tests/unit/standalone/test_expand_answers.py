"""`GET /connectors?expand=...` over a real StandaloneHerder: the answer REST keeps between requests never
shows an older state than the herder's other reads, and it is served while a write holds the herder."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.connector import SourceConnector
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from rest.app import create_app
from tests.support.asgi_client import AsgiClient
from tests.support.rest_harness import isolated_root_logger
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients
from workers.standalone.herder import StandaloneHerder

WORKER_ID = "worker-host:8083"


class GatedTask(SourceTask):
    """Polls nothing; task `n` fails once `n` is in `failing`; `poll` and `stop` wait for `stop_gate` when one
    is set, so a delete holds the herder lock with nothing changed until the test opens it."""

    failing: ClassVar[set[str]] = set()
    stop_gate: ClassVar[threading.Event | None] = None
    stopping: ClassVar[threading.Event] = threading.Event()
    parked: ClassVar[threading.Semaphore] = threading.Semaphore(0)
    """Released by each task thread as it starts waiting for the gate in `poll`."""

    def start(self, props: Mapping[str, str]) -> None:
        self.number = props["n"]
        self.stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.number in GatedTask.failing:
            raise RuntimeError("task failure on purpose")
        gate = GatedTask.stop_gate
        if gate is not None and not gate.is_set():
            GatedTask.parked.release()
            gate.wait(10)  # the task thread can report nothing (no UNASSIGNED on its way out) until it opens
        self.stopped.wait(0.01)
        return None

    def stop(self) -> None:
        # Called on the thread that stops the task: a delete holds the herder lock here until the gate opens.
        GatedTask.stopping.set()
        gate = GatedTask.stop_gate
        if gate is not None:
            gate.wait(10)
        self.stopped.set()


class GatedSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return GatedTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"n": str(n), "setting": self.props.get("setting", "")} for n in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("setting", ConfigType.STRING, "", importance=Importance.LOW)


@pytest.fixture
def client() -> Iterator[AsgiClient]:
    GatedTask.failing.clear()
    GatedTask.stop_gate = None
    GatedTask.stopping.clear()
    GatedTask.parked = threading.Semaphore(0)
    config = WorkerConfig.from_props(
        {"key.converter": "StringConverter", "value.converter": "StringConverter", "offset.flush.interval.ms": "60000"}
    )
    installed = dict.fromkeys(desc.cls for desc in PluginRegistry.discover().plugins())
    registry = PluginRegistry.of(GatedSource, *installed)
    status = MemoryStatusStore(WORKER_ID)
    offsets = MemoryOffsetStore()
    worker = Worker(
        worker_id=WORKER_ID, config=config, plugins=registry, offset_store=offsets, status=status, clients=FakeClients()
    )
    herder = StandaloneHerder(worker, registry, status, offsets, None, WORKER_ID, config=config)
    herder.start()
    herder.mark_ready()
    yield AsgiClient(create_app(herder, loggers=LoggerLevels(isolated_root_logger())))
    if GatedTask.stop_gate is not None:
        GatedTask.stop_gate.set()
    herder.stop()


def _config(**extra: str) -> dict[str, str]:
    return {"connector.class": "GatedSource", "tasks.max": "2", **extra}


def _create(client: AsgiClient, name: str, **extra: str) -> None:
    response = client.post("/connectors", json={"name": name, "config": _config(**extra)})
    assert response.status_code == 201, response.text


def _status(client: AsgiClient, name: str) -> Any:
    return client.get(f"/connectors/{name}/status").json()


def _task_states(client: AsgiClient, name: str) -> list[str]:
    return [task["state"] for task in _status(client, name).get("tasks", [])]


def _expand(client: AsgiClient, *parts: str) -> Any:
    response = client.get("/connectors", params={"expand": list(parts)})
    assert response.status_code == 200
    return response.json()


def test_expand_shows_connectors_created_reconfigured_and_deleted_at_once(client: AsgiClient) -> None:
    _create(client, "a")
    wait_until(lambda: _task_states(client, "a") == ["RUNNING", "RUNNING"], 5, "a's tasks RUNNING")
    both = _expand(client, "status", "info")
    assert both == _expand(client, "status", "info")
    assert set(both["a"]) == {"status", "info"}
    assert set(_expand(client, "info")["a"]) == {"info"}  # each combination is an answer of its own
    assert set(_expand(client, "status")["a"]) == {"status"}

    _create(client, "b")
    assert _expand(client, "info")["b"]["info"]["config"] == {**_config(), "name": "b"}
    put = client.put("/connectors/a/config", json=_config(setting="v2"))
    assert put.status_code == 200
    assert _expand(client, "info")["a"]["info"]["config"]["setting"] == "v2"
    assert client.delete("/connectors/b").status_code == 204
    assert list(_expand(client, "status", "info")) == ["a"]
    assert list(_expand(client, "info")) == ["a"]


def test_expand_status_shows_every_status_change_as_soon_as_the_status_endpoint_does(client: AsgiClient) -> None:
    _create(client, "a")
    wait_until(lambda: _task_states(client, "a") == ["RUNNING", "RUNNING"], 5, "a's tasks RUNNING")
    assert _expand(client, "status") == {"a": {"status": _status(client, "a")}}

    GatedTask.failing.add("1")  # changed by a task thread, not by a REST write
    wait_until(lambda: _task_states(client, "a") == ["RUNNING", "FAILED"], 5, "task 1 FAILED")
    failed = _expand(client, "status")["a"]["status"]
    assert failed == _status(client, "a")
    assert "task failure on purpose" in failed["tasks"][1]["trace"]

    assert client.put("/connectors/a/pause").status_code == 202
    wait_until(lambda: _status(client, "a")["connector"]["state"] == "PAUSED", 5, "a PAUSED")
    wait_until(lambda: _task_states(client, "a") == ["PAUSED", "FAILED"], 5, "task 0 PAUSED")
    assert _expand(client, "status") == {"a": {"status": _status(client, "a")}}


def test_expand_answers_while_a_slow_task_stop_holds_the_herder(client: AsgiClient) -> None:
    _create(client, "a")
    wait_until(lambda: _task_states(client, "a") == ["RUNNING", "RUNNING"], 5, "a's tasks RUNNING")
    before = _expand(client, "status")
    GatedTask.stop_gate = gate = threading.Event()
    # Both task threads parked in poll first: one between polls could see the stop and report on its way out.
    assert all(GatedTask.parked.acquire(timeout=5) for _ in range(2)), "the tasks did not reach the gate"
    deleting = threading.Thread(target=lambda: client.delete("/connectors/a"))
    deleting.start()
    try:
        assert GatedTask.stopping.wait(5), "the delete did not reach the tasks' stop"
        # Nothing has changed yet while the delete waits for a task to stop: the kept answer is still true.
        assert _expand(client, "status") == before
        assert deleting.is_alive()
    finally:
        gate.set()
        deleting.join(10)
    assert _expand(client, "status") == {}
