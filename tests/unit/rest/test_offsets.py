"""REST: a connector's active topics and its offsets."""

from __future__ import annotations

import pytest

from connect.runtime.domain.info import ConnectorOffset
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import RestHarness, file_source_config, rest_harness

SINK_CONFIG = {"connector.class": "FileStreamSinkConnector", "file": "/tmp/out.txt", "topics": "lines"}
STOP_FIRST = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/sink/stop' endpoint"
)


def harness(herder: FakeHerder | None = None) -> RestHarness:
    rest = rest_harness(herder)
    assert rest.client.post("/connectors", json={"name": "src", "config": file_source_config()}).status_code == 201
    assert rest.client.post("/connectors", json={"name": "sink", "config": SINK_CONFIG}).status_code == 201
    return rest


@pytest.fixture
def rest() -> RestHarness:
    return harness()


def test_topics_are_wrapped_in_an_object_keyed_by_connector(rest: RestHarness) -> None:
    rest.herder.set_active_topics("src", ["lines", "more"])
    response = rest.client.get("/connectors/src/topics")
    assert response.status_code == 200
    assert response.json() == {"src": {"topics": ["lines", "more"]}}


def test_topics_reset_answers_202_with_an_empty_body(rest: RestHarness) -> None:
    rest.herder.set_active_topics("src", ["lines"])
    response = rest.client.put("/connectors/src/topics/reset")
    assert response.status_code == 202
    assert response.content == b""
    assert rest.client.get("/connectors/src/topics").json() == {"src": {"topics": []}}


def test_topic_tracking_disabled_is_403() -> None:
    rest = harness(FakeHerder(topic_tracking=False))
    for response in (rest.client.get("/connectors/src/topics"), rest.client.put("/connectors/src/topics/reset")):
        assert response.status_code == 403
        assert response.json() == {"error_code": 403, "message": "Topic tracking is disabled."}


def test_topic_reset_disabled_is_403() -> None:
    rest = harness(FakeHerder(topic_tracking_reset=False))
    assert rest.client.get("/connectors/src/topics").status_code == 200
    response = rest.client.put("/connectors/src/topics/reset")
    assert response.status_code == 403
    assert response.json() == {"error_code": 403, "message": "Topic tracking reset is disabled."}


def test_get_offsets_shape(rest: RestHarness) -> None:
    rest.herder.set_offsets("src", [ConnectorOffset({"filename": "/tmp/in.txt"}, {"position": 42})])
    response = rest.client.get("/connectors/src/offsets")
    assert response.status_code == 200
    assert response.json() == {"offsets": [{"partition": {"filename": "/tmp/in.txt"}, "offset": {"position": 42}}]}


def test_get_offsets_of_unknown_connector_is_404(rest: RestHarness) -> None:
    assert rest.client.get("/connectors/nope/offsets").status_code == 404


def test_altering_offsets_of_a_running_connector_is_400(rest: RestHarness) -> None:
    body = {"offsets": [{"partition": {"kafka_topic": "lines", "kafka_partition": 0}, "offset": {"kafka_offset": 5}}]}
    response = rest.client.patch("/connectors/sink/offsets", json=body)
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": STOP_FIRST}
    reset = rest.client.delete("/connectors/sink/offsets")
    assert reset.status_code == 400
    assert reset.json()["message"] == STOP_FIRST


def test_alter_then_reset_sink_offsets_of_a_stopped_connector(rest: RestHarness) -> None:
    assert rest.client.put("/connectors/sink/stop").status_code == 204
    body = {
        "offsets": [
            {"partition": {"kafka_topic": "lines", "kafka_partition": "0"}, "offset": {"kafka_offset": "10"}},
            {"partition": {"kafka_topic": "lines", "kafka_partition": 1}, "offset": {"kafka_offset": 7}},
        ]
    }
    altered = rest.client.patch("/connectors/sink/offsets", json=body)
    assert altered.status_code == 200
    assert altered.json() == {"message": "The offsets for this connector have been altered successfully"}
    assert rest.client.get("/connectors/sink/offsets").json() == {
        "offsets": [
            {"partition": {"kafka_topic": "lines", "kafka_partition": 0}, "offset": {"kafka_offset": 10}},
            {"partition": {"kafka_topic": "lines", "kafka_partition": 1}, "offset": {"kafka_offset": 7}},
        ]
    }
    one_reset = {"offsets": [{"partition": {"kafka_topic": "lines", "kafka_partition": 1}, "offset": None}]}
    assert rest.client.patch("/connectors/sink/offsets", json=one_reset).status_code == 200
    assert len(rest.client.get("/connectors/sink/offsets").json()["offsets"]) == 1
    reset = rest.client.delete("/connectors/sink/offsets")
    assert reset.status_code == 200
    assert reset.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert rest.client.get("/connectors/sink/offsets").json() == {"offsets": []}


def test_sink_partition_keys_are_checked_by_the_herder(rest: RestHarness) -> None:
    assert rest.client.put("/connectors/sink/stop").status_code == 204
    body = {"offsets": [{"partition": {"topic": "lines"}, "offset": {"kafka_offset": 1}}]}
    response = rest.client.patch("/connectors/sink/offsets", json=body)
    assert response.status_code == 400
    assert "'kafka_topic' and 'kafka_partition'" in response.json()["message"]
    body = {"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": "x"}, "offset": {"kafka_offset": 1}}]}
    assert (
        "Partition values for sink connectors need to be integers"
        in (rest.client.patch("/connectors/sink/offsets", json=body).json()["message"])
    )


@pytest.mark.parametrize("body", [{}, {"offsets": []}, {"offsets": None}])
def test_altering_without_offsets_is_400(rest: RestHarness, body: dict[str, object]) -> None:
    assert rest.client.put("/connectors/sink/stop").status_code == 204
    response = rest.client.patch("/connectors/sink/offsets", json=body)
    assert response.status_code == 400
    assert response.json() == {
        "error_code": 400,
        "message": "Partitions / offsets need to be provided for an alter offsets request",
    }


def test_offsets_entries_must_be_objects_with_a_partition(rest: RestHarness) -> None:
    response = rest.client.patch("/connectors/sink/offsets", json={"offsets": [{"offset": {"kafka_offset": 1}}]})
    assert response.status_code == 400
    assert "offsets.0.partition" in response.json()["message"]
