"""REST: /connectors — list and expand, create, read, reconfigure, patch, delete, task configs."""

from __future__ import annotations

import pytest

from connect.runtime.domain.info import ConnectorStateInfo
from connect.runtime.domain.states import TargetState
from tests.support.rest_harness import RestHarness, file_source_config, rest_harness


@pytest.fixture
def rest() -> RestHarness:
    return rest_harness()


def create(rest: RestHarness, name: str = "src", **extra: object) -> None:
    response = rest.client.post("/connectors", json={"name": name, "config": file_source_config(**extra)})
    assert response.status_code == 201, response.text


def test_list_is_an_array_of_names(rest: RestHarness) -> None:
    assert rest.client.get("/connectors").json() == []
    create(rest, "b")
    create(rest, "a")
    response = rest.client.get("/connectors")
    assert response.status_code == 200
    assert response.json() == ["a", "b"]


def test_expand_status_and_info_gives_an_object_keyed_by_name(rest: RestHarness) -> None:
    create(rest, "src", **{"tasks.max": "2"})
    body = rest.client.get("/connectors?expand=status&expand=info").json()
    assert set(body) == {"src"}
    assert body["src"]["status"] == {
        "name": "src",
        "connector": {"state": "RUNNING", "worker_id": "127.0.0.1:8083"},
        "tasks": [
            {"id": 0, "state": "RUNNING", "worker_id": "127.0.0.1:8083"},
            {"id": 1, "state": "RUNNING", "worker_id": "127.0.0.1:8083"},
        ],
        "type": "source",
    }
    assert body["src"]["info"]["name"] == "src"
    assert body["src"]["info"]["tasks"] == [{"connector": "src", "task": 0}, {"connector": "src", "task": 1}]


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        ("expand=status", {"status"}),
        ("expand=info", {"info"}),
        ("expand=bogus", set()),
        ("expand=info,status", {"info", "status"}),
    ],
)
def test_expand_returns_only_what_was_asked(rest: RestHarness, query: str, keys: set[str]) -> None:
    create(rest)
    assert set(rest.client.get(f"/connectors?{query}").json()["src"]) == keys


def test_expand_skips_connectors_that_vanish_while_listing(rest: RestHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    create(rest, "a")
    create(rest, "b")
    original = rest.herder.connector_status

    def deleted_meanwhile(name: str) -> ConnectorStateInfo:
        if name == "a":
            rest.herder.delete_connector("a")
        return original(name)

    monkeypatch.setattr(rest.herder, "connector_status", deleted_meanwhile)
    response = rest.client.get("/connectors?expand=status")
    assert response.status_code == 200
    assert set(response.json()) == {"b"}


def test_create_answers_201_with_location_and_info(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "  src  ", "config": file_source_config()})
    assert response.status_code == 201
    assert response.headers["location"] == "http://testserver/connectors/src"
    assert response.json() == {
        "name": "src",
        "config": {**file_source_config(), "name": "src"},
        "tasks": [],
        "type": "source",
    }
    assert rest.herder.connector_config("src")["name"] == "src"


def test_create_turns_numbers_and_booleans_into_strings(rest: RestHarness) -> None:
    config = file_source_config(**{"tasks.max": 3, "batch.size": 1.5, "enabled": True})
    response = rest.client.post("/connectors", json={"name": "src", "config": config})
    assert response.status_code == 201
    stored = rest.herder.connector_config("src")
    assert (stored["tasks.max"], stored["batch.size"], stored["enabled"]) == ("3", "1.5", "true")


def test_create_rejects_non_string_structures_in_config(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src", "config": file_source_config(topics=["a"])})
    assert response.status_code == 400
    assert "topics" in response.json()["message"]


def test_create_rejects_a_null_config_value(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src", "config": file_source_config(file=None)})
    assert response.status_code == 400
    assert "file" in response.json()["message"]


def test_create_with_a_mismatching_config_name_is_400(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src", "config": file_source_config(name="other")})
    assert response.status_code == 400
    assert response.json() == {
        "error_code": 400,
        "message": "Connector name configuration (other) doesn't match connector name in the URL (src)",
    }
    assert rest.herder.connectors() == []


def test_create_duplicate_is_409(rest: RestHarness) -> None:
    create(rest)
    response = rest.client.post("/connectors", json={"name": "src", "config": file_source_config()})
    assert response.status_code == 409
    assert response.json() == {"error_code": 409, "message": "Connector src already exists"}


@pytest.mark.parametrize(
    ("text", "target"),
    [("running", TargetState.STARTED), ("PAUSED", TargetState.PAUSED), ("Stopped", TargetState.STOPPED)],
)
def test_initial_state_is_case_insensitive(rest: RestHarness, text: str, target: TargetState) -> None:
    body = {"name": "src", "config": file_source_config(), "initial_state": text}
    assert rest.client.post("/connectors", json=body).status_code == 201
    expected = {TargetState.STARTED: "RUNNING", TargetState.PAUSED: "PAUSED", TargetState.STOPPED: "STOPPED"}
    assert rest.client.get("/connectors/src/status").json()["connector"]["state"] == expected[target]


def test_invalid_initial_state_is_400(rest: RestHarness) -> None:
    body = {"name": "src", "config": file_source_config(), "initial_state": "SLEEPING"}
    response = rest.client.post("/connectors", json=body)
    assert response.status_code == 400
    assert "SLEEPING" in response.json()["message"]
    assert rest.herder.connectors() == []


def test_create_with_an_invalid_config_surfaces_the_herders_message(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src", "config": {"connector.class": "FileStreamSource"}})
    assert response.status_code == 400
    assert response.json()["message"].startswith(
        "Connector configuration is invalid and contains the following 2 error(s):"
    )


def test_create_without_config_is_400(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src"})
    assert response.status_code == 400
    assert "config" in response.json()["message"]


def test_get_connector_and_its_config(rest: RestHarness) -> None:
    create(rest)
    info = rest.client.get("/connectors/src")
    assert info.status_code == 200
    assert info.json()["tasks"] == [{"connector": "src", "task": 0}]
    config = rest.client.get("/connectors/src/config")
    assert config.status_code == 200
    assert config.json() == {**file_source_config(), "name": "src"}


@pytest.mark.parametrize("path", ["/connectors/nope", "/connectors/nope/config", "/connectors/nope/tasks"])
def test_unknown_connector_is_404(rest: RestHarness, path: str) -> None:
    response = rest.client.get(path)
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "Connector nope not found"}


def test_put_config_creates_with_201_then_updates_with_200(rest: RestHarness) -> None:
    created = rest.client.put("/connectors/src/config", json=file_source_config())
    assert created.status_code == 201
    assert created.headers["location"] == "http://testserver/connectors/src"
    updated = rest.client.put("/connectors/src/config", json=file_source_config(topic="other"))
    assert updated.status_code == 200
    assert "location" not in updated.headers
    assert updated.json()["config"]["topic"] == "other"
    assert rest.client.get("/connectors/src/config").json()["topic"] == "other"


def test_put_config_with_a_mismatching_name_is_400(rest: RestHarness) -> None:
    response = rest.client.put("/connectors/src/config", json=file_source_config(name="x"))
    assert response.status_code == 400
    assert "doesn't match connector name in the URL (src)" in response.json()["message"]


def test_put_config_location_is_url_encoded(rest: RestHarness) -> None:
    response = rest.client.put("/connectors/my%20src/config", json=file_source_config())
    assert response.status_code == 201
    assert response.headers["location"] == "http://testserver/connectors/my%20src"
    assert rest.herder.connectors() == ["my src"]


def test_patch_config_merges_and_null_deletes(rest: RestHarness) -> None:
    create(rest, extra="1")
    response = rest.client.patch("/connectors/src/config", json={"topic": "other", "extra": None, "tasks.max": 2})
    assert response.status_code == 200
    config = response.json()["config"]
    assert config["topic"] == "other"
    assert config["tasks.max"] == "2"
    assert "extra" not in config


def test_patch_unknown_connector_is_404(rest: RestHarness) -> None:
    response = rest.client.patch("/connectors/nope/config", json={"topic": "x"})
    assert response.status_code == 404


def test_delete_answers_204_then_the_connector_is_gone(rest: RestHarness) -> None:
    create(rest)
    response = rest.client.delete("/connectors/src")
    assert response.status_code == 204
    assert response.content == b""
    assert rest.client.get("/connectors/src").status_code == 404
    assert rest.client.delete("/connectors/src").status_code == 404


def test_tasks_and_deprecated_tasks_config(rest: RestHarness) -> None:
    create(rest, **{"tasks.max": "2"})
    tasks = rest.client.get("/connectors/src/tasks")
    assert tasks.status_code == 200
    assert [task["id"] for task in tasks.json()] == [{"connector": "src", "task": 0}, {"connector": "src", "task": 1}]
    assert tasks.json()[1]["config"]["task.id"] == "1"
    by_id = rest.client.get("/connectors/src/tasks-config")
    assert by_id.status_code == 200
    assert set(by_id.json()) == {"src-0", "src-1"}
    assert by_id.json()["src-1"] == tasks.json()[1]["config"]
