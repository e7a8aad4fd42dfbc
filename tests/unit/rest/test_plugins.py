"""REST: /connector-plugins — listing, config definitions, validation."""

from __future__ import annotations

import pytest

from tests.support.rest_harness import RestHarness, rest_harness

SOURCE = "connectors.file.source.FileStreamSourceConnector"


@pytest.fixture
def rest() -> RestHarness:
    return rest_harness()


def test_lists_connectors_only_by_default(rest: RestHarness) -> None:
    response = rest.client.get("/connector-plugins")
    assert response.status_code == 200
    plugins = response.json()
    assert {plugin["type"] for plugin in plugins} == {"source", "sink"}
    assert {"class": SOURCE, "type": "source", "version": "0.1.0"} in plugins


def test_plugin_without_version_omits_the_field(rest: RestHarness) -> None:
    plugins = rest.client.get("/connector-plugins").json()
    unversioned = next(plugin for plugin in plugins if plugin["class"].endswith("UnversionedSourceConnector"))
    assert unversioned == {"class": "tests.support.UnversionedSourceConnector", "type": "source"}


@pytest.mark.parametrize("value", ["false", "FALSE", "False"])
def test_connectors_only_false_lists_every_kind(rest: RestHarness, value: str) -> None:
    types = {plugin["type"] for plugin in rest.client.get(f"/connector-plugins?connectorsOnly={value}").json()}
    assert types == {"source", "sink", "converter", "header_converter", "transformation", "predicate"}


def test_plugin_config_definitions(rest: RestHarness) -> None:
    response = rest.client.get("/connector-plugins/FileStreamSource/config")
    assert response.status_code == 200
    assert response.json()[0] == {
        "name": "file",
        "type": "STRING",
        "required": True,
        "default_value": None,
        "importance": "HIGH",
        "documentation": "The file.",
        "group": "File",
        "order": -1,
        "width": "NONE",
        "display_name": "file",
        "dependents": [],
    }


def test_unknown_plugin_config_is_404(rest: RestHarness) -> None:
    response = rest.client.get("/connector-plugins/Nope/config")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "Unknown plugin Nope."}


@pytest.mark.parametrize(
    ("path_name", "config_class"),
    [
        (SOURCE, SOURCE),
        ("FileStreamSourceConnector", SOURCE),
        ("FileStreamSource", SOURCE),
        (SOURCE, "FileStreamSource"),
        ("FileStreamSource", "FileStreamSourceConnector"),
    ],
)
def test_validate_accepts_full_simple_and_alias_names(rest: RestHarness, path_name: str, config_class: str) -> None:
    config = {"connector.class": config_class, "file": "/tmp/in.txt"}
    response = rest.client.put(f"/connector-plugins/{path_name}/config/validate", json=config)
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == config_class
    assert body["error_count"] == 1
    assert body["groups"] == ["Common", "File"]
    topic = next(info for info in body["configs"] if info["definition"] and info["definition"]["name"] == "topic")
    assert topic["value"] == {
        "name": "topic",
        "value": None,
        "recommended_values": [],
        "errors": ['Missing required configuration "topic" which has no default value.'],
        "visible": True,
    }


def test_validate_answers_200_even_with_no_errors(rest: RestHarness) -> None:
    config = {"connector.class": SOURCE, "file": "/tmp/in.txt", "topic": "t", "tasks.max": 1}
    response = rest.client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200
    assert response.json()["error_count"] == 0


def test_validate_without_connector_class_is_400(rest: RestHarness) -> None:
    response = rest.client.put("/connector-plugins/FileStreamSource/config/validate", json={"file": "x"})
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": "Connector config {file=x} contains no connector type"}


def test_validate_with_a_different_class_is_400(rest: RestHarness) -> None:
    config = {"connector.class": "FileStreamSink"}
    response = rest.client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 400
    assert (
        response.json()["message"]
        == "Included connector type FileStreamSink does not match request type FileStreamSource"
    )


def test_validate_body_must_be_an_object(rest: RestHarness) -> None:
    response = rest.client.put("/connector-plugins/FileStreamSource/config/validate", json=["connector.class"])
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": "Request body must be a JSON object"}
