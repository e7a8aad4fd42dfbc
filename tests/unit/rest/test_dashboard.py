"""`/ui`: the page and its assets come from the package and from nowhere else; the figures endpoint sums a
worker's metric groups into what the page draws, and gathers every worker's, forwarding the user's
credentials to the other workers and reporting those that do not answer."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from connect.runtime.metrics.groups import MetricGroup, task_tags
from rest.app import create_app
from rest.ui import ClusterView, ClusterWorker, single_worker
from rest.ui import cluster as cluster_module
from tests.support.asgi_client import AsgiClient
from tests.support.fake_herder import FakeHerder

STATIC = resources.files("rest.ui") / "static"


def _groups() -> list[MetricGroup]:
    source = task_tags("src", 0)
    sink = task_tags("snk", 1)
    return [
        MetricGroup("source-task-metrics", source, {"source-record-poll-total": 120, "source-record-poll-rate": 2.0}),
        MetricGroup("connector-task-metrics", source, {"status": "running"}),
        MetricGroup("sink-task-metrics", sink, {"sink-record-read-total": 80, "sink-record-lag-max": 7}),
        MetricGroup("sink-task-partition-metrics", (*sink, ("topic", "t"), ("partition", "0")), {"lag": 7}),
        MetricGroup("sink-task-partition-metrics", (*sink, ("topic", "t"), ("partition", "1")), {"lag": 3}),
        MetricGroup("consumer-metrics", (("client-id", "c"),), {"incoming-byte-total": 5}, domain="consumer"),
    ]


def _client(view: ClusterView | None = None) -> AsgiClient:
    return AsgiClient(create_app(FakeHerder(), metrics=_groups, cluster=view or single_worker("w1:8083", "")))


def test_the_page_and_every_asset_it_names_are_served() -> None:
    client = _client()
    for path in ("/ui", "/ui/"):
        page = client.get(path)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/ui/static/[^"]+)"', client.get("/ui").text)
    assert sorted(assets) == ["/ui/static/app.js", "/ui/static/style.css"]
    kinds = {".js": "text/javascript", ".css": "text/css"}
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(kinds[asset[asset.rfind(".") :]])


def test_mounted_under_a_prefix_the_page_names_its_assets_under_it() -> None:
    # As a dedicated MirrorMaker serves each flow's worker, under `/<source>/<target>`.
    mounted = Starlette(routes=[Mount("/A/B", app=create_app(FakeHerder(), metrics=_groups))])
    client = AsgiClient(mounted)
    assets = re.findall(r'(?:src|href)="([^"]+)"', client.get("/A/B/ui").text)
    assert sorted(assets) == ["/A/B/ui/static/app.js", "/A/B/ui/static/style.css"]
    assert all(client.get(asset).status_code == 200 for asset in assets)


def test_nothing_is_loaded_from_another_origin() -> None:
    for asset in STATIC.iterdir():
        text = asset.read_text(encoding="utf-8")
        others = set(re.findall(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s\"'`)]*", text)) - {
            "http://www.w3.org/2000/svg"  # the SVG namespace, a name rather than a fetch
        }
        assert not others, f"{asset.name} names {others}"


@pytest.mark.parametrize("name", ["missing.js", "..%2F__init__.py", "__init__.py", "%2E%2E%2Fcluster.py", ".hidden.js"])
def test_only_the_static_assets_can_be_named(name: str) -> None:
    response = _client().get(f"/ui/static/{name}")
    assert response.status_code == 404
    assert response.json()["error_code"] == 404


def test_this_workers_figures_sum_the_partition_lags() -> None:
    tasks = _client().get("/ui/api/task-metrics", params={"scope": "worker"}).json()["tasks"]
    assert sorted(tasks, key=lambda t: t["connector"]) == [
        {"connector": "snk", "task": 1, "type": "sink", "records": 80.0, "lag": 10.0},
        {"connector": "src", "task": 0, "type": "source", "records": 120.0, "lag": None},
    ]


def test_a_bad_scope_is_400() -> None:
    assert _client().get("/ui/api/task-metrics", params={"scope": "galaxy"}).status_code == 400


def test_the_cluster_figures_hold_every_workers_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[httpx.Request] = []

    def peer(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        if request.url.host == "down":
            raise httpx.ConnectError("connection refused", request=request)
        tasks = [{"connector": "far", "task": 0, "type": "source", "records": 9.0, "lag": None}]
        return httpx.Response(200, json={"tasks": tasks})

    real_client = httpx.AsyncClient

    def with_peers(**kwargs: Any) -> httpx.AsyncClient:
        return real_client(transport=httpx.MockTransport(peer), **kwargs)

    monkeypatch.setattr(cluster_module, "AsyncClient", with_peers)
    view = ClusterView(
        lambda: [
            ClusterWorker("w1:8083", "http://w1:8083/", (0, 1), local=True),
            ClusterWorker("w2:8083", "http://w2:8083/", (2,)),
            ClusterWorker("down:8083", "http://down:8083/", (3,)),
        ]
    )
    body = _client(view).get("/ui/api/task-metrics", headers={"Authorization": "Basic dTpw"}).json()

    by_worker = {(t["worker"], t["connector"]) for t in body["tasks"]}
    assert by_worker == {("w1:8083", "src"), ("w1:8083", "snk"), ("w2:8083", "far")}
    workers = {w["id"]: w for w in body["workers"]}
    assert workers["w1:8083"] == {
        "id": "w1:8083",
        "url": "http://w1:8083/",
        "slots": [0, 1],
        "local": True,
        "error": None,
    }
    assert workers["w2:8083"]["error"] is None
    assert "ConnectError" in workers["down:8083"]["error"]
    # Peers are asked for their own figures only, with the user's credentials.
    assert {(r.url.host, r.url.path, r.url.params["scope"]) for r in asked} == {
        ("w2", "/ui/api/task-metrics", "worker"),
        ("down", "/ui/api/task-metrics", "worker"),
    }
    assert all(r.headers["authorization"] == "Basic dTpw" for r in asked)
