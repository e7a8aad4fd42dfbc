"""The dedicated MirrorMaker process before it touches Kafka: which flows it runs, the errors a bad file gets,
and its REST app (each flow's API under `/<source>/<target>`, one `/health` for the process)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from connect.api.errors import ConfigError, NotFoundError
from connect.mirror.dedicated_config import Flow, MirrorMakerConfig
from connect.mirror.mirror_client import GroupActiveError
from connect.mirror.records import Checkpoint
from connect.runtime.domain.info import WorkerHealth
from rest.authorization.api import Authorizer, Operation, Permission, Resource
from rest.authorization.enforcement import AUTHORIZER_SCOPE_KEY
from rest.extensions.api import Principal
from rest.extensions.authentication import PRINCIPAL_SCOPE_KEY
from tests.support.asgi_client import AsgiClient
from workers.cli import main
from workers.common.health import HEALTHY, STARTING
from workers.mirror.process import MirrorMaker
from workers.mirror.rest_app import mirror_app

ONE_WAY = {
    "clusters": "A, B",
    "A.bootstrap.servers": "127.0.0.1:1",
    "B.bootstrap.servers": "127.0.0.1:2",
    "A->B.enabled": "true",
    "config.storage.replication.factor": "1",
}


def test_a_one_way_mirror_runs_the_reverse_flow_for_its_heartbeats_and_clusters_keeps_the_flows_into_them() -> None:
    assert MirrorMaker(MirrorMakerConfig(ONE_WAY)).flows == [Flow("A", "B"), Flow("B", "A")]
    assert MirrorMaker(MirrorMakerConfig(ONE_WAY), ["B"]).flows == [Flow("A", "B")]


def test_no_flow_into_the_given_clusters_and_a_bad_worker_key_are_refused_before_anything_starts() -> None:
    with pytest.raises(ConfigError, match="No flow into C"):
        MirrorMaker(MirrorMakerConfig(ONE_WAY), ["C"])
    with pytest.raises(ConfigError, match=r"session\.timeout\.ms"):
        MirrorMaker(MirrorMakerConfig({**ONE_WAY, "B.session.timeout.ms": "soon"}))


@pytest.fixture
def root_logger_restored() -> Iterator[None]:
    """The command installs its own log handler: the root logger is put back as it was afterwards."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


@pytest.mark.usefixtures("root_logger_restored")
def test_the_command_exits_2_with_the_reason_when_the_file_cannot_start_mirroring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "mm2.properties"
    file.write_text("A.bootstrap.servers=127.0.0.1:1\n")
    assert main(["mirror", str(file)]) == 2
    assert "Stopping due to error: clusters must name the clusters of the topology" in capsys.readouterr().err
    assert main(["mirror", str(tmp_path / "missing.properties")]) == 2
    assert "missing.properties" in capsys.readouterr().err


def test_each_flows_api_is_served_under_its_path_and_health_names_the_first_flow_not_healthy() -> None:
    flows = {Flow("A", "B"): _answering("A->B"), Flow("B", "A"): _answering("B->A")}
    health = {Flow("A", "B"): HEALTHY, Flow("B", "A"): STARTING}
    client = AsgiClient(mirror_app(flows, lambda flow: health[flow], FakeQueries()))

    assert client.get("/A/B/connectors").json() == {"flow": "A->B", "path": "/connectors"}
    assert client.get("/B/A/").json()["flow"] == "B->A"
    assert client.get("/").json() == {"flows": {"A->B": "http://testserver/A/B", "B->A": "http://testserver/B/A"}}

    starting = client.get("/health")
    assert starting.status_code == 503
    assert starting.json()["message"] == f"B->A: {STARTING.message}"
    assert starting.json()["flows"]["A->B"]["status"] == "healthy"

    health[Flow("B", "A")] = WorkerHealth("unhealthy", "Worker cannot read its config topic from Kafka: down")
    assert client.get("/health").status_code == 500
    health[Flow("B", "A")] = HEALTHY
    healthy = client.get("/health")
    assert (healthy.status_code, healthy.json()["status"]) == (200, "healthy")


def _answering(name: str) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # What a mounted app sees: the path below its mount point.
        root = str(scope.get("root_path", ""))
        path = str(scope["path"])
        path = path[len(root) :] if path.startswith(root) else path
        await JSONResponse({"flow": name, "path": path})(scope, receive, send)

    return app


class FakeQueries:
    """A flow A->B whose group `billing` has a checkpoint and an active member on the target."""

    def status(self, flow: Flow) -> dict[str, Any]:
        return {"enabled": flow == Flow("A", "B"), "lag": 0}

    def translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]:
        if group != "billing":
            raise NotFoundError(f"No checkpoint of consumer group {group}")
        return [Checkpoint("billing", "A.orders", 0, 120, 118, "m")]

    def apply_translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]:
        raise GroupActiveError(f"Consumer group {group} is STABLE on the target cluster: stop its consumers")


def test_the_runbook_routes_answer_with_kafka_connects_error_shape() -> None:
    flows = {Flow("A", "B"): _answering("A->B"), Flow("B", "A"): _answering("B->A")}
    client = AsgiClient(mirror_app(flows, lambda _: HEALTHY, FakeQueries()))

    assert client.get("/flows").json() == {"A->B": {"enabled": True, "lag": 0}, "B->A": {"enabled": False, "lag": 0}}
    translated = client.get("/flows/A/B/groups/billing/offsets")
    assert translated.json() == {
        "group": "billing",
        "offsets": [{"topic": "A.orders", "partition": 0, "offset": 118, "upstream_offset": 120, "metadata": "m"}],
    }
    refused = client.post("/flows/A/B/groups/billing/offsets")
    assert (refused.status_code, refused.json()["error_code"]) == (409, 409)
    assert "stop its consumers" in refused.json()["message"]
    assert client.get("/flows/A/B/groups/other/offsets").status_code == 404
    unknown = client.get("/flows/A/C/groups/billing/offsets")
    assert unknown.status_code == 404
    assert unknown.json()["message"] == "This MirrorMaker runs no flow A->C"


def test_the_flows_page_and_every_asset_it_names_are_served_with_the_dashboards_policy() -> None:
    flows = {Flow("A", "B"): _answering("A->B")}
    client = AsgiClient(mirror_app(flows, lambda _: HEALTHY, FakeQueries()))

    page = client.get("/ui")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/ui/static/[^"]+)"', page.text)
    assert sorted(assets) == ["/ui/static/flows.js", "/ui/static/style.css"]
    for asset in assets:
        assert client.get(asset).status_code == 200
    missing = client.get("/ui/static/app.js")
    assert (missing.status_code, missing.json()["error_code"]) == (404, 404)
    # A flow's own dashboard is its worker's, under the flow's path (the flow app here answers every path).
    assert client.get("/A/B/ui").json() == {"flow": "A->B", "path": "/ui"}


class _ViewOnly(Authorizer):
    def authorize(self, principal: Principal, operation: Operation, resource: Resource) -> bool:
        return principal.name == "vera" and operation.permission in (None, Permission.VIEW)


def test_with_an_authorizer_the_runbook_reads_take_a_view_and_a_failover_of_offsets_the_admin_role() -> None:
    flows = {Flow("A", "B"): _answering("A->B")}
    app = mirror_app(flows, lambda _: HEALTHY, FakeQueries())

    def as_user(name: str) -> AsgiClient:
        async def authenticated(scope: Scope, receive: Receive, send: Send) -> None:
            parties = {PRINCIPAL_SCOPE_KEY: Principal(name, "BASIC"), AUTHORIZER_SCOPE_KEY: _ViewOnly()}
            await app({**scope, **parties}, receive, send)

        return AsgiClient(authenticated)

    vera, nobody = as_user("vera"), as_user("nobody")
    assert vera.get("/flows").status_code == vera.get("/").status_code == 200
    refused = vera.post("/flows/A/B/groups/billing/offsets")
    assert refused.json() == {
        "error_code": 403,
        "message": "User 'vera' may not perform mirror.offsets.write on the cluster: "
        "it needs the 'admin' permission there",
    }
    assert [nobody.get(path).status_code for path in ("/", "/flows", "/flows/A/B/groups/billing/offsets")] == [403] * 3
    assert nobody.get("/health").status_code == 200
