"""The worker image (`kconnect:local`, docker/Dockerfile) run by a real container engine: its default
command is a distributed worker configured by `KCONNECT_*` variables alone (tests/containers/support.py)."""

from __future__ import annotations

import base64
import hashlib
import textwrap
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from tests.containers.support import (
    ENGINE_GRACE_S,
    STRING_CONVERTER,
    connector_running,
    post_connector,
    start_worker,
)
from tests.fixtures.containers.engine import Engine
from tests.fixtures.containers.plugin import ContainerRunner
from tests.fixtures.kafka import new_topic
from tests.support.topic_reads import high_watermark, read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.containers


def test_a_connector_posted_to_the_worker_container_runs_and_its_records_arrive(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner
) -> None:
    container, url = start_worker(containers, worker_image, kafka_bootstrap)
    topic = new_topic(kafka_admin, prefix="kc-container")
    records = 300

    post_connector(
        url,
        "datagen",
        {
            "connector.class": "DatagenConnector",
            "tasks.max": "1",
            "kafka.topic": topic,
            "quickstart": "sequence",
            "max.records": str(records),
            "key.converter": STRING_CONVERTER,
        },
    )

    wait_until(lambda: connector_running(url, "datagen"), 60, "the connector and its task RUNNING")
    wait_until(lambda: high_watermark(kafka_bootstrap, topic) >= records, 60, "every record in Kafka")
    values = read_topic(kafka_bootstrap, topic, 1, "read_uncommitted")
    assert len(values) == records, container.logs()
    assert len(set(values)) == records, "each sequence record once"
    # The built-in connectors that need drivers (the SQL ones, PostgreSQL CDC's psycopg2) load too: a plug-in
    # whose import fails is left out of this list.
    plugins = {p["class"].rsplit(".", 1)[-1] for p in httpx.get(f"{url}/connector-plugins", timeout=10).json()}
    assert {"SqlSourceConnector", "SqlSinkConnector", "PostgresConnector"} <= plugins, plugins


def test_the_engine_stopping_the_container_stops_the_worker_cleanly_within_the_grace_period(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner
) -> None:
    container, url = start_worker(containers, worker_image, kafka_bootstrap)
    topic = new_topic(kafka_admin, prefix="kc-container")
    post_connector(
        url,
        "datagen",
        {
            "connector.class": "DatagenConnector",
            "kafka.topic": topic,
            "quickstart": "sequence",
            "max.records": "-1",
            "records.per.second": "200",
        },
    )
    wait_until(lambda: connector_running(url, "datagen"), 60, "the connector and its task RUNNING")

    started = time.monotonic()
    container.stop(ENGINE_GRACE_S)
    elapsed = time.monotonic() - started

    state = container.state()
    logs = container.logs()
    assert state["ExitCode"] == 0, f"exit code {state['ExitCode']} (137: killed after the grace period)\n{logs}"
    assert elapsed < ENGINE_GRACE_S, f"took {elapsed:.1f} s\n{logs}"
    assert "Stop requested; leaving the cluster" in logs, logs


def test_a_restarted_worker_container_runs_its_connector_again_and_its_health_check_passes(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner
) -> None:
    container, url = start_worker(containers, worker_image, kafka_bootstrap)
    topic = new_topic(kafka_admin, prefix="kc-container")
    post_connector(
        url,
        "datagen",
        {"connector.class": "DatagenConnector", "kafka.topic": topic, "max.records": "-1", "records.per.second": "50"},
    )
    wait_until(lambda: connector_running(url, "datagen"), 60, "the connector and its task RUNNING")
    assert container.run_health_check(), container.logs()
    container.stop(ENGINE_GRACE_S)
    written = high_watermark(kafka_bootstrap, topic)

    container.start()  # its state is in Kafka, not in the container

    wait_until(lambda: connector_running(url, "datagen"), 90, "the connector RUNNING after the restart", interval=0.25)
    wait_until(lambda: high_watermark(kafka_bootstrap, topic) > written, 30, "new records after the restart")
    assert container.run_health_check(), container.logs()


def test_the_images_run_as_a_non_root_user(container_engine: Engine, worker_image: str) -> None:
    configured = container_engine.inspect("image", worker_image)["Config"]
    assert isinstance(configured, dict) and configured["User"] == "1000:1000"
    # Any program runs in place of kconnect, as that user.
    assert container_engine.run("run", "--rm", worker_image, "id", "-u").strip() == "1000"


PLUGIN_MODULE = '''
"""A connector that writes one greeting, installed from a wheel when the container starts."""
import time

from connect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from kc_greeting_words import GREETING


class GreetingSourceConnector(SourceConnector):
    def start(self, props):
        self._props = dict(props)

    def task_class(self):
        return GreetingSourceTask

    def task_configs(self, max_tasks):
        return [self._props]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()


class GreetingSourceTask(SourceTask):
    def start(self, props):
        self._topic = props["topic"]
        self._sent = False

    def poll(self):
        if self._sent:
            time.sleep(0.2)
            return None
        self._sent = True
        return [SourceRecord(None, None, self._topic, value=GREETING)]

    def stop(self):
        pass
'''


def make_wheel(
    wheels: Path, name: str, module: str, source: str, requires: tuple[str, ...] = (), entry_points: str = ""
) -> None:
    """A pure-Python wheel of one module, written as the wheel format says (PEP 427): what `pip wheel` would
    make of a one-module project, without a build backend on the host."""
    distribution = name.replace("-", "_")
    info = f"{distribution}-1.0.dist-info"
    files = {
        f"{module}.py": textwrap.dedent(source),
        f"{info}/METADATA": "".join(
            [
                "Metadata-Version: 2.1\n",
                f"Name: {name}\n",
                "Version: 1.0\n",
                *(f"Requires-Dist: {r}\n" for r in requires),
            ]
        ),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: kconnect-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": entry_points,
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    wheels.mkdir(exist_ok=True)
    with zipfile.ZipFile(wheels / f"{distribution}-1.0-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


def test_plugin_wheels_mounted_into_the_container_are_installed_at_start_with_what_they_need(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner, tmp_path: Path
) -> None:
    wheels = tmp_path / "wheels"
    # The plug-in needs a package the image lacks (its wheel is in the same directory) and kconnect (the
    # image's own).
    make_wheel(wheels, "kc-greeting-words", "kc_greeting_words", 'GREETING = "hello from a wheel"\n')
    make_wheel(
        wheels,
        "kc-greeting",
        "kc_greeting",
        PLUGIN_MODULE,
        requires=("kc-greeting-words", "kconnect"),
        entry_points="[kconnect.connectors]\nGreetingSourceConnector = kc_greeting:GreetingSourceConnector\n",
    )
    container, url = start_worker(
        containers, worker_image, kafka_bootstrap, volumes=((wheels, "/opt/kconnect/plugin-wheels", "ro"),)
    )

    plugins = [p["class"] for p in httpx.get(f"{url}/connector-plugins", timeout=10).json()]
    assert any(p.endswith("GreetingSourceConnector") for p in plugins), plugins
    topic = new_topic(kafka_admin, prefix="kc-container")
    post_connector(url, "greeting", {"connector.class": "GreetingSourceConnector", "topic": topic})
    wait_until(lambda: high_watermark(kafka_bootstrap, topic) >= 1, 60, "the plug-in's record in Kafka")
    assert read_topic(kafka_bootstrap, topic, 1, "read_uncommitted") == [b"hello from a wheel"], container.logs()
