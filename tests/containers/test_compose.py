"""docker/compose.yaml brought up for real (podman-compose on podman), with the local Kafka image as
KAFKA_IMAGE: three KRaft brokers, three workers of one cluster and the example pipeline, the `spark`
profile's two Spark-image workers with their Parquet pipeline, whose jobs run on the profile's Spark
standalone master and worker, and the `dr` profile's second cluster with `kconnect mirror` mirroring the
pipeline's topic to it, all started by the compose file alone. One
project serves the module's tests; the last one kills a worker.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
import yaml

from tests.containers.support import connector_running, post_connector, task_workers
from tests.fixtures.containers.compose import ComposeProject, compose_missing, published_ports
from tests.fixtures.containers.engine import ContainerEngineError, Engine
from tests.fixtures.tcp_ports import free_port
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.containers, pytest.mark.heavy, pytest.mark.timeout(900)]

WORKERS = ("worker-1", "worker-2", "worker-3")
SPARK_WORKERS = ("spark-worker-1", "spark-worker-2")
SPARK_CLUSTER = ("spark-master", "spark-executors")
BROKERS = ("kafka-1", "kafka-2", "kafka-3")
DR = ("kafka-dr", "mirror")  # the `dr` profile: docker/mirror/mm2.properties mirrors `orders` as `primary.orders`
PIPELINE = "orders-datagen"  # docker/pipelines/orders.json
PARQUET_PIPELINE = "orders-parquet"  # docker/pipelines/orders-parquet.json, its files in the volume `parquet`
INTERNAL_TOPICS = ("kconnect-configs", "kconnect-offsets", "kconnect-status")
IN_NETWORK = Path(__file__).with_name("in_compose_network.py")
# From `up` to the example pipeline's tasks RUNNING: brokers, then workers (restarted until the brokers
# are there), then the pipeline; a few minutes at most on two busy cores.
START_TIMEOUT_S = 300
# The compose workers keep the default session timeout (10 s) and heartbeat (3 s): their failover target
# is S + H + 2 s (docs/distributed.md), with room for a machine shared with other tests.
FAILOVER_DEADLINE_S = 60


@dataclass
class Cluster:
    project: ComposeProject
    urls: dict[str, str]  # service -> the REST URL of its published port

    def diagnostics(self) -> str:
        services = (*BROKERS, *WORKERS, "pipeline", *SPARK_WORKERS, *SPARK_CLUSTER, "spark-pipeline", *DR)
        return "\n".join(f"--- {s}, last lines:\n{self.project.logs(s)}" for s in services)


@pytest.fixture(scope="module")
def compose_cluster(
    container_engine: Engine, worker_image: str, spark_image: str, kafka_image: str
) -> Iterator[Cluster]:
    if container_engine.is_podman and (missing := compose_missing()) is not None:
        pytest.fail(missing, pytrace=False)
    services = (*WORKERS, *SPARK_WORKERS, "mirror")
    ports = [free_port() for _ in services]
    project = ComposeProject(
        container_engine, {"KAFKA_IMAGE": kafka_image, **published_ports(services, ports)}, profiles=("spark", "dr")
    )
    cluster = Cluster(project, {w: f"http://127.0.0.1:{p}" for w, p in zip(services, ports, strict=True)})
    started = time.monotonic()
    try:
        project.up()
        wait_until(
            lambda: connector_running(cluster.urls["worker-1"], PIPELINE),
            START_TIMEOUT_S,
            "the example pipeline created by the compose file, RUNNING",
            interval=1,
        )
    except (AssertionError, ContainerEngineError) as exc:
        diagnostics = cluster.diagnostics()
        project.down()
        pytest.fail(f"{exc}\n{diagnostics}", pytrace=False)
    print(f"compose up to the pipeline RUNNING: {time.monotonic() - started:.1f} s")
    yield cluster
    project.down()


def test_compose_renders_the_file_with_the_spark_profile_and_the_kafka_image_given(container_engine: Engine) -> None:
    project = ComposeProject(container_engine, {"KAFKA_IMAGE": "kafka:local"}, profiles=("spark", "dr"))
    rendered = yaml.safe_load(project.run("config"))
    assert set(rendered["services"]) == {
        *BROKERS,
        *WORKERS,
        "pipeline",
        *SPARK_WORKERS,
        *SPARK_CLUSTER,
        "spark-pipeline",
        *DR,
    }
    assert {rendered["services"][broker]["image"] for broker in (*BROKERS, "kafka-dr")} == {"kafka:local"}


@pytest.mark.slow
def test_the_compose_cluster_replicates_its_internal_topics_and_passes_its_health_checks(
    compose_cluster: Cluster,
) -> None:
    project = compose_cluster.project
    replicas = json.loads(project.exec_python("worker-1", IN_NETWORK, "replicas", *INTERNAL_TOPICS))
    assert set(replicas) == set(INTERNAL_TOPICS), replicas
    assert all(counts and set(counts) == {3} for counts in replicas.values()), replicas
    # podman runs HEALTHCHECKs on a timer only where systemd runs: here the test runs them, as the engine
    # would. Both the broker's check (the compose file's) and the worker's (the image's) must pass.
    for service in ("kafka-1", "worker-1"):
        container = project.container(service)
        wait_until(lambda c=container: _healthy(project.engine, c), 60, f"{service}'s health check passing", interval=2)


def test_a_connector_posted_to_one_worker_runs_on_the_compose_cluster_and_its_records_arrive(
    compose_cluster: Cluster,
) -> None:
    records = 500
    topic = "compose-sequence"
    post_connector(
        compose_cluster.urls["worker-2"],
        "sequence",
        {
            "connector.class": "DatagenConnector",
            "tasks.max": "1",
            "kafka.topic": topic,
            "quickstart": "sequence",
            "max.records": str(records),
            "records.per.second": "1000",
        },
    )
    # Any worker answers for the whole cluster.
    wait_until(lambda: connector_running(compose_cluster.urls["worker-3"], "sequence"), 60, "the connector RUNNING")

    def arrived() -> dict[str, int] | None:
        try:
            counted: dict[str, int] = json.loads(
                compose_cluster.project.exec_python("worker-1", IN_NETWORK, "count", topic)
            )
        except ContainerEngineError:
            return None  # the topic is not there yet
        return counted if counted["records"] >= records else None

    counted = wait_until(arrived, 90, f"{records} records in {topic}", interval=2)
    assert counted == {"records": records, "distinct": records}


@pytest.mark.slow
def test_the_spark_profile_writes_the_pipelines_topic_as_parquet_through_its_spark_cluster(
    compose_cluster: Cluster,
) -> None:
    spark_url = compose_cluster.urls["spark-worker-1"]
    wait_until(lambda: connector_running(spark_url, PARQUET_PIPELINE), 120, "the Parquet pipeline RUNNING")
    files_root = compose_cluster.project.volume_path("parquet") / "parquet" / "topics" / "orders"

    def committed_files() -> list[Path]:
        return sorted(files_root.rglob("*.parquet"))

    # The pipeline commits every 1,000 records or 30 s (orders-parquet.json), whichever comes first.
    try:
        files = wait_until(committed_files, 180, f"Parquet files under {files_root}", interval=2)
    except AssertionError as exc:
        status = httpx.get(f"{spark_url}/connectors/{PARQUET_PIPELINE}/status", timeout=5).text
        logs = "\n".join(f"--- {s}:\n{compose_cluster.project.logs(s)}" for s in (*SPARK_WORKERS, *SPARK_CLUSTER))
        raise AssertionError(f"{exc}\nstatus: {status[:6000]}\n{logs}") from None
    table = pq.read_table(files[0])
    assert table.num_rows > 0
    assert {"orderid", "itemid", "orderunits", "address"} <= set(table.column_names), table.schema
    # The jobs ran on the standalone cluster's executors, not in the workers' own JVMs: each kconnect worker
    # running a task of the sink is an application of the master, with the Spark worker's cores in use.
    spark = json.loads(compose_cluster.project.exec_python("spark-worker-1", IN_NETWORK, "spark"))
    assert [w["state"] for w in spark["workers"]] == ["ALIVE"], spark
    assert spark["apps"] and all(a["name"] == "kconnect-spark-sink" for a in spark["apps"]), spark
    assert spark["workers"][0]["coresused"] == sum(a["cores"] for a in spark["apps"]) > 0, spark


def test_the_dr_profile_mirrors_the_pipelines_topic_to_the_second_cluster(compose_cluster: Cluster) -> None:
    url, project = compose_cluster.urls["mirror"], compose_cluster.project

    def source_connector_running() -> bool:
        try:
            status = httpx.get(f"{url}/primary/dr/connectors/MirrorSourceConnector/status", timeout=5).json()
        except (httpx.HTTPError, ValueError):
            return False
        tasks = status.get("tasks", [])
        return (
            status.get("connector", {}).get("state") == "RUNNING"
            and bool(tasks)
            and all(task["state"] == "RUNNING" for task in tasks)
        )

    wait_until(source_connector_running, START_TIMEOUT_S, "kconnect mirror's source connector RUNNING", interval=2)
    assert set(httpx.get(f"{url}/", timeout=10).json()["flows"]) == {"primary->dr", "dr->primary"}

    def mirrored() -> int:
        answer = project.exec_python("worker-1", IN_NETWORK, "count", "primary.orders", "kafka-dr:9092")
        return int(json.loads(answer)["records"])

    wait_until(lambda: mirrored() > 0, 120, "the pipeline's records on the DR cluster", interval=3)
    before = mirrored()
    wait_until(lambda: mirrored() > before, 60, "records the pipeline writes now mirrored too", interval=3)


def test_killing_a_worker_container_of_the_compose_cluster_moves_its_tasks_to_the_others(
    compose_cluster: Cluster,
) -> None:
    urls = compose_cluster.urls
    owners = wait_until(
        lambda: task_workers(urls["worker-1"], PIPELINE), 60, "the pipeline's tasks RUNNING", interval=0.5
    )
    victim_id = owners[0]
    victim = victim_id.split(":")[0]  # the worker id is its host name (the service's) and port
    assert victim in WORKERS, owners
    survivor_url = next(urls[service] for service in WORKERS if service != victim)

    compose_cluster.project.engine.run("kill", compose_cluster.project.container(victim))
    killed = time.monotonic()

    def moved() -> list[str] | None:
        now = task_workers(survivor_url, PIPELINE)
        return now if now is not None and victim_id not in now else None

    now = wait_until(moved, FAILOVER_DEADLINE_S, "the killed worker's tasks RUNNING on the others", interval=0.25)
    print(f"tasks moved {time.monotonic() - killed:.1f} s after the kill: {owners} -> {now}")
    assert len(now) == len(owners)
    wait_until(lambda: connector_running(survivor_url, PIPELINE), 30, "the connector RUNNING on a survivor")


def _healthy(engine: Engine, container: str) -> bool:
    if engine.is_podman:
        try:
            engine.run("healthcheck", "run", container, timeout=60)
        except ContainerEngineError:
            return False
        return True
    health = engine.inspect("container", container)["State"]
    return isinstance(health, dict) and health.get("Health", {}).get("Status") == "healthy"
