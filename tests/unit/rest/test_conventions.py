"""REST conventions every Kafka Connect client relies on: the error body on every non-2xx, the exception
mapping, trailing slashes without redirects, body parsing, ignored extra params, and the docs."""

from __future__ import annotations

import logging

import pytest

from connect.api.errors import AlreadyExistsError, ConfigError, ConnectError, NotFoundError
from connect.runtime.domain.errors import BadRequestError, ConflictError, ForbiddenError, RequestTimeoutError
from connect.runtime.domain.info import WorkerHealth
from tests.support.rest_harness import RestHarness, file_source_config, rest_harness


@pytest.fixture
def rest() -> RestHarness:
    return rest_harness()


def test_root_answers_server_info(rest: RestHarness) -> None:
    response = rest.client.get("/")
    assert response.status_code == 200
    assert response.json() == {"version": "0.1.0", "commit": "fake", "kafka_cluster_id": "fake-cluster"}


@pytest.mark.parametrize(("status", "code"), [("healthy", 200), ("starting", 503), ("unhealthy", 500)])
def test_health_status_codes(rest: RestHarness, status: str, code: int) -> None:
    rest.herder.worker_health = WorkerHealth(status, f"worker is {status}")
    response = rest.client.get("/health")
    assert response.status_code == code
    body = response.json()
    assert (body["status"], body["message"]) == (status, f"worker is {status}")
    assert body.get("error_code") == (None if code == 200 else code)


def test_unknown_path_is_404_with_the_error_body(rest: RestHarness) -> None:
    response = rest.client.get("/no/such/thing")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}


def test_wrong_method_is_405_with_the_error_body(rest: RestHarness) -> None:
    response = rest.client.delete("/connector-plugins")
    assert response.status_code == 405
    assert response.json() == {"error_code": 405, "message": "HTTP 405 Method Not Allowed"}
    assert "GET" in response.headers["allow"]


def test_non_json_content_type_is_415(rest: RestHarness) -> None:
    response = rest.client.put("/connectors/src/config", content=b"file=/tmp/x", headers={"content-type": "text/plain"})
    assert response.status_code == 415
    assert response.json() == {"error_code": 415, "message": "HTTP 415 Unsupported Media Type"}
    assert rest.herder.connectors() == []


def test_a_body_without_content_type_is_read_as_json(rest: RestHarness) -> None:
    body = b'{"connector.class": "FileStreamSource", "file": "/tmp/in", "topic": "t"}'
    response = rest.client.put("/connectors/src/config", content=body)
    assert response.status_code == 201


def test_malformed_json_is_400_with_the_parsers_message(rest: RestHarness) -> None:
    response = rest.client.post(
        "/connectors", content=b'{"name": "src",\n "config": {', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    message = response.json()["message"]
    assert message.startswith("Malformed JSON body: ")
    assert "line 2" in message


@pytest.mark.parametrize("body", [b"[1, 2]", b'"text"', b"42"])
def test_a_body_that_is_not_an_object_is_400(rest: RestHarness, body: bytes) -> None:
    response = rest.client.put("/connectors/src/config", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": "Request body must be a JSON object"}


def test_a_missing_body_is_400(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error_code"] == 400
    assert "body" in response.json()["message"]


def test_validation_errors_become_400_naming_the_field(rest: RestHarness) -> None:
    response = rest.client.post("/connectors", json={"name": "src", "config": {"tasks.max": {"n": 1}}})
    assert response.status_code == 400
    assert response.json()["error_code"] == 400
    assert "config.tasks.max" in response.json()["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/connectors/",
        "/connector-plugins/",
        "/connectors/src/",
        "/connectors/src/status/",
        "/admin/loggers/",
        "/health/",
    ],
)
def test_trailing_slashes_are_served_without_redirect(rest: RestHarness, path: str) -> None:
    assert rest.client.post("/connectors", json={"name": "src", "config": file_source_config()}).status_code == 201
    with_slash = rest.client.get(path)
    assert with_slash.status_code == 200
    assert with_slash.json() == rest.client.get(path.rstrip("/")).json()


def test_post_with_trailing_slash_creates(rest: RestHarness) -> None:
    response = rest.client.post("/connectors/", json={"name": "src", "config": file_source_config()})
    assert response.status_code == 201
    assert rest.herder.connectors() == ["src"]


def test_forward_and_other_unknown_query_params_are_ignored(rest: RestHarness) -> None:
    response = rest.client.post(
        "/connectors?forward=true&foo=bar", json={"name": "src", "config": file_source_config()}
    )
    assert response.status_code == 201
    assert rest.client.get("/connectors/src/config?forward=false").status_code == 200


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (ConfigError("bad config"), 400, "bad config"),
        (BadRequestError("bad request"), 400, "bad request"),
        (ForbiddenError("nope"), 403, "nope"),
        (NotFoundError("missing"), 404, "missing"),
        (AlreadyExistsError("exists"), 409, "exists"),
        (ConflictError("Cannot complete request momentarily due to no known leader URL"), 409, None),
        (RequestTimeoutError(), 500, "Request timed out"),
        (RequestTimeoutError("Request timed out. The worker is joining the group"), 500, None),
        (ConnectError("engine trouble"), 500, "engine trouble"),
        (RuntimeError("unexpected"), 500, "unexpected"),
        (KeyError(), 500, "KeyError"),
    ],
)
def test_errors_map_to_kafkas_status_codes(
    rest: RestHarness, caplog: pytest.LogCaptureFixture, error: Exception, status: int, message: str | None
) -> None:
    rest.herder.raise_on["connectors"] = error
    with caplog.at_level(logging.ERROR, logger="rest"):
        response = rest.client.get("/connectors")
    assert response.status_code == status
    assert response.json() == {"error_code": status, "message": message or str(error)}
    logged = [record for record in caplog.records if record.exc_info]
    unexpected = status == 500 and not isinstance(error, RequestTimeoutError)
    assert len(logged) == (1 if unexpected else 0)


def test_openapi_and_docs_are_served(rest: RestHarness) -> None:
    spec = rest.client.get("/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    assert "/connectors/{connector}/tasks/{task}/restart" in paths
    assert "/admin/loggers/{logger}" in paths
    assert all("422" not in op["responses"] for ops in paths.values() for op in ops.values())
    assert paths["/connectors/{connector}"]["get"]["description"] == "The connector's config, task ids and type."
    docs = rest.client.get("/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


def test_internal_endpoints_are_not_served(rest: RestHarness) -> None:
    assert rest.client.post("/connectors", json={"name": "src", "config": file_source_config()}).status_code == 201
    assert rest.client.post("/connectors/src/tasks", json=[]).status_code == 405
    assert rest.client.put("/connectors/src/fence").status_code == 404
