"""What the container tests share: a worker container configured by KCONNECT_* variables and its REST API.

The containers share the host's network: the tests' broker listens on 127.0.0.1 and advertises that
address, which a container on a bridge network could not reach.
"""

from __future__ import annotations

import uuid

import httpx

from tests.fixtures.containers.plugin import Container, ContainerRunner, Volume
from tests.fixtures.tcp_ports import free_port
from tests.support.waiting import wait_until

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
# The engine's default grace period between SIGTERM and SIGKILL (`podman stop`, `docker stop`).
ENGINE_GRACE_S = 10


def new_group() -> str:
    return f"kc-container-{uuid.uuid4().hex[:8]}"


def worker_environment(bootstrap: str, port: int, group: str) -> dict[str, str]:
    """A worker of cluster `group` (its internal topics named after it), REST on 127.0.0.1:`port`."""
    return {
        "KCONNECT_BOOTSTRAP_SERVERS": bootstrap,
        "KCONNECT_GROUP_ID": group,
        "KCONNECT_CONFIG_STORAGE_TOPIC": f"{group}-configs",
        "KCONNECT_OFFSET_STORAGE_TOPIC": f"{group}-offsets",
        "KCONNECT_STATUS_STORAGE_TOPIC": f"{group}-status",
        # One broker: Kafka Connect's default of 3 replicas cannot be met.
        "KCONNECT_CONFIG_STORAGE_REPLICATION_FACTOR": "1",
        "KCONNECT_OFFSET_STORAGE_REPLICATION_FACTOR": "1",
        "KCONNECT_STATUS_STORAGE_REPLICATION_FACTOR": "1",
        "KCONNECT_OFFSET_STORAGE_PARTITIONS": "1",
        "KCONNECT_KEY_CONVERTER": STRING_CONVERTER,
        "KCONNECT_VALUE_CONVERTER": STRING_CONVERTER,
        "KCONNECT_OFFSET_FLUSH_INTERVAL_MS": "1000",
        "KCONNECT_LISTENERS": f"http://127.0.0.1:{port}",
    }


def start_worker(
    containers: ContainerRunner,
    image: str,
    bootstrap: str,
    *,
    volumes: tuple[Volume, ...] = (),
    extra_env: dict[str, str] | None = None,
    group: str | None = None,
) -> tuple[Container, str]:
    """A worker container (of a cluster of its own unless `group` names one) with its REST API answering;
    (container, REST URL)."""
    port = free_port()
    env = {**worker_environment(bootstrap, port, group or new_group()), **(extra_env or {})}
    container = containers.run(image, env=env, volumes=volumes, network="host")
    url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        if not container.state().get("Running"):
            raise AssertionError(f"the worker container stopped:\n{container.logs()}")
        try:
            return httpx.get(f"{url}/connectors", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(answering, 90, "the worker container's REST API", interval=0.25)
    return container, url


def post_connector(url: str, name: str, config: dict[str, str]) -> None:
    response = httpx.post(f"{url}/connectors", json={"name": name, "config": config}, timeout=30)
    assert response.status_code == 201, response.text


def connector_running(url: str, name: str) -> bool:
    try:
        response = httpx.get(f"{url}/connectors/{name}/status", timeout=5)
    except httpx.HTTPError:
        return False  # not listening (yet, or any more)
    if response.status_code != 200:
        return False
    status = response.json()
    tasks = status["tasks"]
    return status["connector"]["state"] == "RUNNING" and bool(tasks) and all(t["state"] == "RUNNING" for t in tasks)


def task_workers(url: str, name: str) -> list[str] | None:
    """The worker id of each of the connector's tasks while all of them are RUNNING, else None."""
    try:
        response = httpx.get(f"{url}/connectors/{name}/status", timeout=5)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    tasks = response.json()["tasks"]
    if not tasks or any(t["state"] != "RUNNING" for t in tasks):
        return None
    return [str(t["worker_id"]) for t in tasks]
