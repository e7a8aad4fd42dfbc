"""Apache Kafka Connect itself as a standalone worker process (Java `ConnectStandalone`, from the Maven Central jars
the benchmarks use, resolved once into a cache outside the repo), for tests that show kconnect and Java side by
side."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench.java_connect import jars as java_jars
from bench.systems.base import WorkerMode
from bench.systems.java import JavaConnect
from local_kafka.jars import default_version
from tests.fixtures.tcp_ports import free_port
from tests.support.jvm import QUICK_JVM_OPTIONS
from tests.support.processes import end_process
from tests.support.waiting import wait_until


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def java_standalone_worker(bootstrap: str, workdir: Path, props: Mapping[str, str]) -> Iterator[str]:
    """A running Java standalone worker on `bootstrap` with `props` over String converters and a file offset
    store in `workdir`; yields its REST URL. Its log is `workdir/connect.log`."""
    settings = {"offset.storage.file.filename": str(workdir / "connect.offsets"), **props}
    with _java_worker(bootstrap, workdir, settings, WorkerMode.STANDALONE) as url:
        yield url


@contextmanager
def java_distributed_worker(bootstrap: str, workdir: Path, props: Mapping[str, str]) -> Iterator[str]:
    """A running Java distributed worker (`ConnectDistributed`) on `bootstrap`; `props` name its group and
    internal topics. Yields its REST URL once it answers; its log is `workdir/connect.log`."""
    with _java_worker(bootstrap, workdir, props, WorkerMode.DISTRIBUTED) as url:
        yield url


@contextmanager
def _java_worker(bootstrap: str, workdir: Path, props: Mapping[str, str], mode: WorkerMode) -> Iterator[str]:
    version = default_version()
    system = JavaConnect(java_jars.fetch(version), version, QUICK_JVM_OPTIONS)
    assert system.unavailable_reason() is None, system.unavailable_reason()
    url = f"http://127.0.0.1:{free_port()}"
    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.flush.interval.ms": "1000",
        "listeners": url,
        **system.extra_worker_properties(workdir),
        **props,
    }
    worker_file = workdir / "worker.properties"
    worker_file.write_text("".join(f"{key}={value}\n" for key, value in worker.items()))
    with (workdir / "stdout.log").open("wb") as out:
        process = subprocess.Popen(system.command(worker_file, workdir, mode), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: process.poll() is None and _answers(url), 120, "Java Kafka Connect's REST API", interval=0.5)
        yield url
    finally:
        end_process(process, 60)
