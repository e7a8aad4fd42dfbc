"""docs/connectors.md's two example connectors, run as its reader would: the HTTP-polling source and the
JSON-lines sink in a standalone worker on a real broker, by their class names. Every item reaches the file
once, and after a restart the source resumes after its stored offset and the sink after its committed one."""

from __future__ import annotations

import json
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.connector_guide import EXAMPLE_PROJECT, PACKAGE
from tests.support.standalone_workers import all_running, create_connector, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


class ItemsEndpoint:
    """`GET /items?after=N`: the items with an id above N, three at a time, as the guide's endpoint answers."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                after = int(parse_qs(urlsplit(self.path).query)["after"][0])
                body = json.dumps([item for item in endpoint.items if item["id"] > after][:3]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/items"

    def add(self, ids: range) -> None:
        self.items += [{"id": n, "name": f"item-{n}"} for n in ids]


@pytest.fixture
def items_endpoint() -> Iterator[ItemsEndpoint]:
    endpoint = ItemsEndpoint()
    thread = threading.Thread(target=endpoint.server.serve_forever, daemon=True)
    thread.start()
    yield endpoint
    endpoint.server.shutdown()
    endpoint.server.server_close()


@pytest.fixture
def guide_package(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(EXAMPLE_PROJECT))
    yield
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def lines(path: Path) -> list[Any]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines()]
    except FileNotFoundError:
        return []


@pytest.mark.usefixtures("guide_package")
def test_the_guides_source_and_sink_move_every_item_once_across_a_restart(
    kafka_bootstrap: str, items_endpoint: ItemsEndpoint, tmp_path: Path
) -> None:
    topic, out = f"guide-items-{uuid.uuid4().hex[:8]}", tmp_path / "items.jsonl"
    json_values = {
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }
    props = worker_props(kafka_bootstrap, tmp_path / "connect.offsets", **json_values)
    source = {
        "connector.class": f"{PACKAGE}.http_source.HttpSourceConnector",
        "url": items_endpoint.url,
        "topic": topic,
        "poll.interval.ms": "100",
    }
    sink = {"connector.class": f"{PACKAGE}.jsonl_sink.JsonLinesSinkConnector", "topics": topic, "file": str(out)}

    def run_until_every_item_is_written() -> None:
        # A standalone worker keeps connectors created through REST in memory only: create them at each start.
        with running_worker(props) as (_, client):
            create_connector(client, "guide-source", source)
            create_connector(client, "guide-sink", sink)
            wait_until(lambda: all_running(client, "guide-source", 1), 30, "the source RUNNING")
            wait_until(lambda: len(lines(out)) >= len(items_endpoint.items), 60, "every item in the file")

    items_endpoint.add(range(1, 8))
    run_until_every_item_is_written()
    items_endpoint.add(range(8, 12))
    run_until_every_item_is_written()

    assert lines(out) == items_endpoint.items
