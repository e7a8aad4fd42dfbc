"""`connector.client.config.override.policy` (KIP-458) checked where Kafka checks it: `/validate` reports an
error on each forbidden `*.override.*` key, and POST/PUT answer 400 with Kafka's message, instead of a
task that fails later. Kafka's default, `All`, allows every override."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from rest.app import create_app
from tests.support.asgi_client import AsgiClient
from tests.support.rest_harness import isolated_root_logger
from tests.support.worker_fakes import FakeClients
from workers.standalone.herder import StandaloneHerder

SOURCE = {
    "connector.class": "FileStreamSource",
    "file": "/tmp/in.txt",
    "topic": "lines",
    "producer.override.linger.ms": "5",
    "producer.override.sasl.mechanism": "SCRAM-SHA-512",
}


@pytest.fixture
def rest(request: pytest.FixtureRequest) -> Iterator[AsgiClient]:
    policy: str | None = getattr(request, "param", None)
    props = {"key.converter": "StringConverter", "value.converter": "StringConverter"}
    if policy is not None:
        props["connector.client.config.override.policy"] = policy
    config = WorkerConfig.from_props(props)
    registry = PluginRegistry.discover()
    status, store = MemoryStatusStore("w:8083"), MemoryOffsetStore()
    worker = Worker(
        worker_id="w:8083", config=config, plugins=registry, offset_store=store, status=status, clients=FakeClients()
    )
    herder = StandaloneHerder(worker, registry, status, store, None, "w:8083", config=config)
    herder.start()
    herder.mark_ready()
    yield AsgiClient(create_app(herder, loggers=LoggerLevels(isolated_root_logger())))
    herder.stop()


def _errors(client: AsgiClient) -> dict[str, list[str]]:
    answer = client.put("/connector-plugins/FileStreamSource/config/validate", json=SOURCE).json()
    return {
        c["value"]["name"]: c["value"]["errors"]
        for c in answer["configs"]
        if c["value"]["name"].startswith("producer.")
    }


def test_all_is_the_default_and_allows_every_override(rest: AsgiClient) -> None:
    assert _errors(rest) == {"producer.override.linger.ms": [], "producer.override.sasl.mechanism": []}
    assert rest.post("/connectors", json={"name": "src", "config": SOURCE}).status_code == 201


@pytest.mark.parametrize("rest", ["None"], indirect=True)
def test_none_forbids_every_override_at_validate_and_create(rest: AsgiClient) -> None:
    assert _errors(rest) == {
        "producer.override.linger.ms": [
            "The 'None' policy does not allow 'linger.ms' to be overridden in the connector configuration."
        ],
        "producer.override.sasl.mechanism": [
            "The 'None' policy does not allow 'sasl.mechanism' to be overridden in the connector configuration."
        ],
    }
    refused = rest.post("/connectors", json={"name": "src", "config": SOURCE})
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert message.startswith("Connector configuration is invalid and contains the following 2 error(s):")
    assert "The 'None' policy does not allow 'linger.ms' to be overridden" in message
    assert rest.put("/connectors/src/config", json=SOURCE).status_code == 400
    assert rest.get("/connectors").json() == []


@pytest.mark.parametrize("rest", ["principal"], indirect=True)
def test_principal_allows_only_the_principal_settings(rest: AsgiClient) -> None:
    assert _errors(rest) == {
        "producer.override.linger.ms": [
            "The 'Principal' policy does not allow 'linger.ms' to be overridden in the connector configuration."
        ],
        "producer.override.sasl.mechanism": [],
    }
    only_principal = {k: v for k, v in SOURCE.items() if k != "producer.override.linger.ms"}
    assert rest.post("/connectors", json={"name": "src", "config": only_principal}).status_code == 201
