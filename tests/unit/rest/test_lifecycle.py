"""REST: connector and task status, restart, pause, resume and stop."""

from __future__ import annotations

import threading

import pytest

from connect.runtime.domain.info import ConnectorStateInfo, RestartRequest, TaskStateInfo
from connect.runtime.domain.states import ConnectorTaskId
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import RestHarness, file_source_config, rest_harness

WORKER = "127.0.0.1:8083"


@pytest.fixture
def rest() -> RestHarness:
    harness = rest_harness()
    config = file_source_config(**{"tasks.max": "2"})
    assert harness.client.post("/connectors", json={"name": "src", "config": config}).status_code == 201
    return harness


def test_status_shape_omits_empty_trace(rest: RestHarness) -> None:
    response = rest.client.get("/connectors/src/status")
    assert response.status_code == 200
    assert response.json() == {
        "name": "src",
        "connector": {"state": "RUNNING", "worker_id": WORKER},
        "tasks": [
            {"id": 0, "state": "RUNNING", "worker_id": WORKER},
            {"id": 1, "state": "RUNNING", "worker_id": WORKER},
        ],
        "type": "source",
    }


class ThreadRecordingHerder(FakeHerder):
    """Remembers the threads its status reads ran on."""

    def __init__(self, *, instant: bool) -> None:
        super().__init__()
        self.instant = instant
        self.status_threads: list[threading.Thread] = []

    def connector_status(self, name: str) -> ConnectorStateInfo:
        self.status_threads.append(threading.current_thread())
        return super().connector_status(name)

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        self.status_threads.append(threading.current_thread())
        return super().task_status(task)


class InstantStatusHerder(ThreadRecordingHerder):
    def status_reads_are_instant(self) -> bool:
        return self.instant


@pytest.mark.parametrize(
    ("herder", "on_event_loop"),
    [
        (InstantStatusHerder(instant=True), True),
        (InstantStatusHerder(instant=False), False),
        (ThreadRecordingHerder(instant=True), False),
    ],
)
def test_status_reads_run_on_the_event_loop_only_if_the_herder_says_they_never_wait(
    herder: ThreadRecordingHerder, on_event_loop: bool
) -> None:
    rest = rest_harness(herder)
    assert rest.client.post("/connectors", json={"name": "src", "config": file_source_config()}).status_code == 201
    assert rest.client.get("/connectors/src/status").json()["name"] == "src"
    assert rest.client.get("/connectors/src/tasks/0/status").json()["id"] == 0
    # The in-process client runs the app's event loop on this thread.
    assert [thread is threading.current_thread() for thread in herder.status_threads] == [on_event_loop] * 2
    assert rest.client.get("/connectors/nope/status").json() == {
        "error_code": 404,
        "message": "No status found for connector nope",
    }


def test_status_of_a_failed_task_carries_its_trace(rest: RestHarness) -> None:
    rest.herder.fail_task("src", 1, "Traceback: boom")
    tasks = rest.client.get("/connectors/src/status").json()["tasks"]
    assert tasks[1] == {"id": 1, "state": "FAILED", "worker_id": WORKER, "trace": "Traceback: boom"}
    assert "trace" not in tasks[0]
    task = rest.client.get("/connectors/src/tasks/1/status")
    assert task.status_code == 200
    assert task.json() == {"id": 1, "state": "FAILED", "worker_id": WORKER, "trace": "Traceback: boom"}


def test_status_of_unknown_connector_is_404(rest: RestHarness) -> None:
    response = rest.client.get("/connectors/nope/status")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "No status found for connector nope"}


def test_status_of_unknown_task_is_404(rest: RestHarness) -> None:
    response = rest.client.get("/connectors/src/tasks/7/status")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "No status found for task src-7"}


def test_task_id_that_is_not_a_number_is_404(rest: RestHarness) -> None:
    response = rest.client.get("/connectors/src/tasks/one/status")
    assert response.status_code == 404
    assert response.json()["error_code"] == 404
    assert "task" in response.json()["message"]


def test_task_restart_answers_204(rest: RestHarness) -> None:
    rest.herder.fail_task("src", 0, "boom")
    response = rest.client.post("/connectors/src/tasks/0/restart")
    assert response.status_code == 204
    assert response.content == b""
    assert rest.herder.restarts == [ConnectorTaskId("src", 0)]
    assert rest.client.get("/connectors/src/tasks/0/status").json()["state"] == "RUNNING"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/connectors/nope/tasks/0/restart", "Unknown connector: nope"),
        ("/connectors/src/tasks/9/restart", "Unknown task: src-9"),
    ],
)
def test_task_restart_of_unknown_is_404(rest: RestHarness, path: str, message: str) -> None:
    response = rest.client.post(path)
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": message}


def test_plain_restart_answers_204_without_body(rest: RestHarness) -> None:
    response = rest.client.post("/connectors/src/restart")
    assert response.status_code == 204
    assert response.content == b""
    assert rest.herder.restarts == [RestartRequest("src")]


def test_restart_with_false_flags_is_the_plain_restart(rest: RestHarness) -> None:
    response = rest.client.post("/connectors/src/restart?includeTasks=false&onlyFailed=False")
    assert response.status_code == 204


def test_restart_with_tasks_answers_202_with_the_plan(rest: RestHarness) -> None:
    response = rest.client.post("/connectors/src/restart?includeTasks=true")
    assert response.status_code == 202
    body = response.json()
    assert body["connector"]["state"] == "RESTARTING"
    assert [task["state"] for task in body["tasks"]] == ["RESTARTING", "RESTARTING"]
    assert rest.herder.restarts == [RestartRequest("src", only_failed=False, include_tasks=True)]


@pytest.mark.parametrize("flag", ["TRUE", "True", "true"])
def test_restart_flags_are_case_insensitive(rest: RestHarness, flag: str) -> None:
    rest.herder.fail_task("src", 1, "boom")
    response = rest.client.post(f"/connectors/src/restart?includeTasks={flag}&onlyFailed={flag}")
    assert response.status_code == 202
    body = response.json()
    assert body["connector"]["state"] == "RUNNING"
    assert [task["state"] for task in body["tasks"]] == ["RUNNING", "RESTARTING"]
    assert rest.herder.restarts == [RestartRequest("src", only_failed=True, include_tasks=True)]


def test_restart_flag_that_is_not_a_boolean_is_400(rest: RestHarness) -> None:
    response = rest.client.post("/connectors/src/restart?includeTasks=maybe")
    assert response.status_code == 400
    assert "includeTasks" in response.json()["message"]
    assert rest.herder.restarts == []


def test_restart_of_unknown_connector_is_404(rest: RestHarness) -> None:
    assert rest.client.post("/connectors/nope/restart").status_code == 404
    assert rest.client.post("/connectors/nope/restart?includeTasks=true").status_code == 404


def test_pause_and_resume_answer_202_with_an_empty_body(rest: RestHarness) -> None:
    paused = rest.client.put("/connectors/src/pause")
    assert paused.status_code == 202
    assert paused.content == b""
    assert rest.client.get("/connectors/src/status").json()["connector"]["state"] == "PAUSED"
    assert rest.client.put("/connectors/src/pause").status_code == 202
    resumed = rest.client.put("/connectors/src/resume")
    assert resumed.status_code == 202
    assert resumed.content == b""
    assert rest.client.get("/connectors/src/status").json()["connector"]["state"] == "RUNNING"


def test_stop_answers_204_and_leaves_no_tasks(rest: RestHarness) -> None:
    response = rest.client.put("/connectors/src/stop")
    assert response.status_code == 204
    status = rest.client.get("/connectors/src/status").json()
    assert status["connector"]["state"] == "STOPPED"
    assert status["tasks"] == []
    assert rest.client.put("/connectors/src/stop").status_code == 204
    assert rest.client.put("/connectors/src/resume").status_code == 202
    assert len(rest.client.get("/connectors/src/status").json()["tasks"]) == 2


@pytest.mark.parametrize("action", ["pause", "resume", "stop"])
def test_state_changes_of_unknown_connector_are_404(rest: RestHarness, action: str) -> None:
    response = rest.client.put(f"/connectors/nope/{action}")
    assert response.status_code == 404
    assert response.json()["error_code"] == 404
