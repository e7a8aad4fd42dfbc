"""`GET /metrics` of a real standalone worker running real pipelines over the real broker: the values say
what happened (records polled, read and put; a task that died; a sink's lag while paused), whether tasks
run on the worker's threads or in task processes, and every metric served is one the catalog documents."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Producer
from prometheus_client.parser import text_string_to_metric_families

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.metrics.catalog_docs import markdown
from connect.runtime.task_process import ProcessWorkerTask
from tests.support.standalone_workers import line_count, running_worker, worker_props
from tests.support.waiting import wait_until
from workers.standalone.process import StandaloneWorker

pytestmark = pytest.mark.integration

LINES = 500
# Client statistics every half second instead of every 10 s, so the client figures show up at once.
FAST_CLIENT_STATS = {"producer.statistics.interval.ms": "500", "consumer.statistics.interval.ms": "500"}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: httpx.Client) -> Samples:
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def task_value(samples: Samples, name: str, connector: str, task: int = 0) -> float | None:
    return value(samples, name, connector=connector, task=str(task))


def _file_source(name: str, file: Path, topic: str) -> dict[str, object]:
    return {"name": name, "config": {"connector.class": "FileStreamSource", "file": str(file), "topic": topic}}


def _file_sink(name: str, file: Path, topic: str) -> dict[str, object]:
    return {"name": name, "config": {"connector.class": "FileStreamSink", "file": str(file), "topics": topic}}


@pytest.fixture(params=["thread", "process"])
def isolation(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def standalone(kafka_bootstrap: str, tmp_path: Path, isolation: str) -> Iterator[tuple[StandaloneWorker, httpx.Client]]:
    props = worker_props(kafka_bootstrap, tmp_path / "connect.offsets", **FAST_CLIENT_STATS)
    props["task.isolation"] = isolation
    with running_worker(props) as running:
        yield running


@pytest.fixture
def worker_client(standalone: tuple[StandaloneWorker, httpx.Client]) -> httpx.Client:
    return standalone[1]


def test_counts_say_what_the_pipeline_did(
    worker_client: httpx.Client, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(LINES)))
    client = worker_client
    assert client.post("/connectors", json=_file_source("m-source", source_file, topic)).status_code == 201
    assert client.post("/connectors", json=_file_sink("m-sink", sink_file, topic)).status_code == 201
    wait_until(lambda: line_count(sink_file) >= LINES, 60, f"{LINES} lines in the sink file", interval=0.2)

    def settled() -> Samples | None:
        samples = scrape(client)
        done = (
            task_value(samples, "kafka_connect_sink_task_sink_record_send_total", "m-sink") == LINES
            and (task_value(samples, "kafka_connect_sink_task_offset_commit_completion_total", "m-sink") or 0) >= 1
            and (value(samples, "kafka_producer_outgoing_byte_total", clientId="connector-producer-m-source-0") or 0)
            > 0
        )
        return samples if done else None

    samples = wait_until(settled, 30, "the sink's records and commit, and the producer's statistics", interval=0.2)
    assert task_value(samples, "kafka_connect_source_task_source_record_poll_total", "m-source") == LINES
    assert task_value(samples, "kafka_connect_source_task_source_record_write_total", "m-source") == LINES
    assert task_value(samples, "kafka_connect_sink_task_sink_record_read_total", "m-sink") == LINES
    assert task_value(samples, "kafka_connect_sink_task_partition_count", "m-sink") == 1
    assert (task_value(samples, "kafka_connect_source_task_poll_batch_max_time_ms", "m-source") or -1) >= 0
    assert (task_value(samples, "kafka_connect_connector_task_batch_size_max", "m-source") or 0) >= 1
    for connector in ("m-source", "m-sink"):
        assert task_value(samples, "kafka_connect_task_error_total_record_errors", connector) == 0
        labels = {"connector": connector, "task": "0", "status": "running"}
        assert value(samples, "kafka_connect_connector_task_status", **labels) == 1
        assert value(samples, "kafka_connect_connector_status", connector=connector, status="running") == 1
        assert value(samples, "kafka_connect_worker_connector_running_task_count", connector=connector) == 1
        assert (task_value(samples, "kafka_connect_connector_task_running_ratio", connector) or 0) > 0
    assert value(samples, "kafka_connect_connector_connector_type", connector="m-sink", connector_type="sink") == 1
    assert value(samples, "kafka_connect_worker_connector_count") == 2
    assert value(samples, "kafka_connect_worker_task_count") == 2
    assert value(samples, "kafka_connect_worker_task_startup_success_total") == 2
    consumer = "connector-consumer-m-sink-0"
    assert (value(samples, "kafka_consumer_incoming_byte_total", clientId=consumer) or 0) > 0
    assert (value(samples, "kafka_consumer_connection_count", clientId=consumer) or 0) >= 1
    assert (value(samples, "kafka_producer_connection_count", clientId="connector-producer-m-source-0") or 0) >= 1
    served = {name for name, _ in samples}
    documented = set(_documented_names())
    assert {n for n in served if n.startswith("kafka_")} <= documented


def _documented_names() -> Iterator[str]:
    """Every sample name the catalog's table lists (counters with and without `_total`)."""
    for line in markdown().splitlines()[2:]:
        name = line.split("`")[1]
        yield name


def test_a_task_that_dies_counts_as_failed(
    standalone: tuple[StandaloneWorker, httpx.Client], isolation: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    worker, client = standalone
    if isolation == "process":
        # A live task whose process is killed: the worker marks it FAILED.
        assert client.post("/connectors", json=_file_sink("m-dies", tmp_path / "out.txt", topic)).status_code == 201
        wait_until(lambda: _task_state(client, "m-dies") == "RUNNING", 30, "the sink task running")
        runner = worker.herder.worker.task(ConnectorTaskId("m-dies", 0))
        assert isinstance(runner, ProcessWorkerTask) and runner.pid is not None
        os.kill(runner.pid, signal.SIGKILL)
    else:
        # A sink whose file is a directory fails as it starts.
        directory = tmp_path / "a-directory"
        directory.mkdir()
        assert client.post("/connectors", json=_file_sink("m-dies", directory, topic)).status_code == 201
    wait_until(lambda: _task_state(client, "m-dies") == "FAILED", 30, "the sink task failed")
    samples = scrape(client)
    assert value(samples, "kafka_connect_worker_connector_failed_task_count", connector="m-dies") == 1
    assert value(samples, "kafka_connect_worker_connector_running_task_count", connector="m-dies") == 0
    failed = {"connector": "m-dies", "task": "0", "status": "failed"}
    assert value(samples, "kafka_connect_connector_task_status", **failed) == 1


def _task_state(client: httpx.Client, name: str) -> str | None:
    response = client.get(f"/connectors/{name}/status")
    tasks = response.json().get("tasks") if response.status_code == 200 else None
    return tasks[0]["state"] if tasks else None


def test_lag_grows_while_the_sink_is_paused_and_drains_after_resume(
    worker_client: httpx.Client, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=2)
    client = worker_client
    sink_file = tmp_path / "out.txt"
    assert client.post("/connectors", json=_file_sink("m-lag", sink_file, topic)).status_code == 201
    _produce(kafka_bootstrap, topic, 100)
    wait_until(lambda: line_count(sink_file) >= 100, 30, "the first records in the sink file", interval=0.2)
    assert client.put("/connectors/m-lag/pause").status_code == 202
    wait_until(lambda: _task_state(client, "m-lag") == "PAUSED", 30, "the sink task paused")
    _produce(kafka_bootstrap, topic, 300)

    def lag() -> float | None:
        return task_value(scrape(client), "kafka_connect_sink_task_sink_record_lag_max", "m-lag")

    def partition_lags() -> float:
        samples = scrape(client)
        return sum(v for (name, _), v in samples.items() if name == "kafka_connect_sink_task_partition_lag")

    wait_until(lambda: partition_lags() == 300, 30, "the 300 records produced while paused as lag")
    assert (lag() or 0) >= 150  # two partitions, round robin: the larger share
    assert client.put("/connectors/m-lag/resume").status_code == 202
    wait_until(lambda: partition_lags() == 0, 30, "the lag drained after the resume")
    assert line_count(sink_file) == 400


def _produce(bootstrap: str, topic: str, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for index in range(count):
        producer.produce(topic, f"value-{index}".encode(), f"key-{index}".encode())
    assert producer.flush(30) == 0
