"""`GET /metrics`: this worker's metrics in Prometheus' text format (`connect.runtime.metrics.prometheus`).

Each worker serves its own: its connectors and tasks (wherever they run: a scrape asks each task
process), its Kafka clients, and in a cluster its rebalances; Prometheus scrapes every worker, as it
scrapes every JVM's JMX exporter of a Java cluster. Behind the same authentication as the rest of the API;
with an authorizer, a caller's scrape holds only the connectors it may view.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Request, Response
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.metrics.prometheus import render
from rest.authorization.enforcement import visible

router = APIRouter(tags=["metrics"])

MetricsSource = Callable[[], list[MetricGroup]]


@router.get("/metrics", response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
def metrics(request: Request) -> Response:
    """This worker's metrics, named as Strimzi's JMX exporter rules name Kafka Connect's."""
    source: MetricsSource = request.app.state.metrics
    # A caller allowed some connectors gets their series and the worker's own, none of the others'.
    groups = visible(request, source(), lambda group: group.tag("connector"))
    return Response(render(groups), media_type=CONTENT_TYPE_LATEST)
