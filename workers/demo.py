"""`make run`: a local Kafka broker, a standalone worker and an example pipeline, until Ctrl-C.

datagen (`pageviews`, 10 records/s) → topic `kconnect-demo` → FileStreamSink → `.kconnect/demo/pageviews.jsonl`.
The pipeline is created through the worker's own REST API, exactly as a user would. The broker state lives
in `.kconnect/kafka` (port 9092, or the next free one), the worker's REST API on :8083 (or the next free
port); both fallbacks are announced. Ctrl-C (or SIGTERM) stops the worker, then the broker if this run
started it.
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import httpx

from connect.runtime.kafka import KafkaClients, TopicSpec
from local_kafka import LocalKafka, LocalKafkaError
from local_kafka.config import CONTROLLER_PORT_OFFSET
from workers.common.logs import configure_logging
from workers.standalone.process import StandaloneWorker

log = logging.getLogger(__name__)

STATE_DIR = Path(".kconnect")
KAFKA_DIR = STATE_DIR / "kafka"
DEMO_DIR = STATE_DIR / "demo"
TOPIC = "kconnect-demo"
SOURCE_NAME = "demo-pageviews"
SINK_NAME = "demo-pageviews-file"
PORT_SEARCH = 100


def _free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def first_free_port(preferred: int, *, also_free_offset: int | None = None) -> int:
    """`preferred` if free (with `preferred + also_free_offset` when given), else the next such port."""
    for port in range(preferred, preferred + PORT_SEARCH):
        if _free(port) and (also_free_offset is None or _free(port + also_free_offset)):
            return port
    raise RuntimeError(f"no free port in {preferred}..{preferred + PORT_SEARCH - 1}")


def start_kafka(directory: Path, preferred_port: int) -> tuple[LocalKafka, bool]:
    """The running broker of `directory` if there is one (not ours to stop), else a new one on a free port."""
    recorded = LocalKafka.from_directory(directory)
    if recorded is not None and recorded.status().running:
        print(f"Reusing the Kafka broker already running from {directory} at {recorded.bootstrap_servers}")
        print(f"  (it was not started by this run, so it keeps running: `kconnect kafka stop --dir {directory}`)")
        return recorded, False
    port = first_free_port(preferred_port, also_free_offset=CONTROLLER_PORT_OFFSET)
    if port != preferred_port:
        print(f"Port {preferred_port} is taken: the Kafka broker listens on 127.0.0.1:{port} instead")
    kafka = LocalKafka(directory, 1, port)
    print(f"Starting Apache Kafka {kafka.version} in {directory} (first start fetches the jars, then ~10 s) ...")
    kafka.start()
    return kafka, True


def worker_props(bootstrap: str, rest_port: int, demo_dir: Path) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "offset.storage.file.filename": str(demo_dir / "connect.offsets"),
        # Commit (and so flush the sink file) every second: `tail -f` shows a steady stream.
        "offset.flush.interval.ms": "1000",
        "listeners": f"http://localhost:{rest_port}",
    }


def pipeline(output: Path, rate: float) -> list[dict[str, object]]:
    """The `POST /connectors` bodies of the example pipeline."""
    return [
        {
            "name": SOURCE_NAME,
            "config": {
                "connector.class": "DatagenConnector",
                "quickstart": "pageviews",
                "kafka.topic": TOPIC,
                "records.per.second": str(rate),
                "tasks.max": "1",
            },
        },
        {
            "name": SINK_NAME,
            "config": {
                "connector.class": "FileStreamSink",
                "topics": TOPIC,
                "file": str(output.resolve()),
                # The JSON text as it sits in Kafka, one record per line.
                "value.converter": "org.apache.kafka.connect.storage.StringConverter",
                "tasks.max": "1",
            },
        },
    ]


def create_topic(worker: StandaloneWorker) -> None:
    """The demo topic, so the sink does not subscribe to a topic that does not exist yet."""
    admin = KafkaClients.from_worker_config(worker.config).admin("kconnect-demo-admin")
    try:
        admin.create_topics([TopicSpec(TOPIC, 1, 1)])
    finally:
        admin.close()


def create_pipeline(base_url: str, bodies: list[dict[str, object]]) -> None:
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        for body in bodies:
            response = client.post("/connectors", json=body)
            if response.status_code == 409:
                continue  # an earlier demo run's connector (a standalone worker forgets them, but be kind)
            if response.status_code != 201:
                raise RuntimeError(f"creating {body['name']} failed: {response.status_code} {response.text}")


def kconnect_command() -> str:
    """How to run `kconnect` from here: the script beside this Python (a virtual environment's, which need not
    be on PATH), relative to the current directory when it is below it."""
    script = Path(sys.executable).parent / "kconnect"
    if not script.exists():
        return "kconnect"
    return str(script.relative_to(Path.cwd())) if script.is_relative_to(Path.cwd()) else str(script)


def banner(base_url: str, bootstrap: str, output: Path, rate: float) -> str:
    url, ctl = base_url.rstrip("/"), f"{kconnect_command()} ctl"
    return f"""
kconnect is running.

  Kafka broker      {bootstrap}
  REST API          {url}   (interactive docs: {url}/docs)
  Dashboard         {url}/ui
  Metrics           {url}/metrics   (Prometheus text format)
  Pipeline          {SOURCE_NAME}: datagen pageviews, {rate:g} records/s -> topic {TOPIC}
                    {SINK_NAME}: topic {TOPIC} -> {output}

Try:
  tail -f {output}
  curl -s {url}/connectors?expand=status
  curl -s {url}/connectors/{SOURCE_NAME}/status
  curl -s -X PUT {url}/connectors/{SOURCE_NAME}/pause
  curl -s -X PUT {url}/connectors/{SOURCE_NAME}/resume
  curl -s {url}/connector-plugins
  {ctl} --url {url} get connectors --watch
  {ctl} --url {url} describe connector {SOURCE_NAME}

Press Ctrl-C to stop the worker and the broker.
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--kafka-port", type=int, default=9092, help="preferred broker port (default: 9092)")
    parser.add_argument("--rest-port", type=int, default=8083, help="preferred REST port (default: 8083)")
    parser.add_argument("--rate", type=float, default=10.0, help="records per second (default: 10)")
    parser.add_argument("--log-level", default="WARNING", help="worker log level on stderr (default: WARNING)")
    args = parser.parse_args(argv)
    configure_logging(str(args.log_level).upper())

    stop_requested = threading.Event()

    def request_stop(_signum: int, _frame: FrameType | None) -> None:
        stop_requested.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, request_stop)

    try:
        kafka, started_kafka = start_kafka(KAFKA_DIR, args.kafka_port)
    except (LocalKafkaError, RuntimeError) as exc:
        print(f"Could not start Kafka: {exc}", file=sys.stderr)
        return 1
    try:
        if stop_requested.is_set():  # Ctrl-C while the broker was starting
            return 0
        return _run_worker(kafka.bootstrap_servers, args.rest_port, args.rate, stop_requested)
    finally:
        if started_kafka:
            print("Stopping the Kafka broker ...")
            kafka.stop()
        print("Bye.")


def _run_worker(bootstrap: str, preferred_rest_port: int, rate: float, stop_requested: threading.Event) -> int:
    DEMO_DIR.mkdir(parents=True, exist_ok=True)
    output = DEMO_DIR / "pageviews.jsonl"
    rest_port = first_free_port(preferred_rest_port)
    if rest_port != preferred_rest_port:
        print(f"Port {preferred_rest_port} is taken: the REST API listens on port {rest_port} instead")
    worker = StandaloneWorker.from_props(worker_props(bootstrap, rest_port, DEMO_DIR))
    try:
        create_topic(worker)
        worker.start()
        base_url = f"http://localhost:{rest_port}"
        create_pipeline(base_url, pipeline(output, rate))
        print(banner(base_url, bootstrap, output, rate), flush=True)
        while not stop_requested.wait(1.0):
            pass
        print("\nStopping the worker (final offset commit) ...")
        return 0
    except Exception as exc:
        log.exception("The demo failed")
        print(f"The demo failed: {exc}", file=sys.stderr)
        return 1
    finally:
        worker.stop()


if __name__ == "__main__":
    raise SystemExit(main())
