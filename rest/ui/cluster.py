"""The workers of the cluster, and the task figures of all of them gathered by whichever worker is asked.

Each worker's metrics hold only what it runs, so a page that shows the whole cluster needs every
worker's. The page asks one worker (the one that served it) and that worker asks the others, server
side, rather than the browser fetching each worker's `/metrics` itself: the workers' advertised
addresses need not be reachable from the user's browser (a cluster behind one ingress or a port
forward), a fetch to another origin needs CORS switched on for it, and a browser keeps basic-auth
credentials per origin, so it would hold none for the other workers.

A peer is asked for its own figures only (`scope=worker`), over its advertised URL from the slot claims,
with the `Authorization` header of the request being served: the workers of a cluster share their REST
authentication, so the user's credentials are good on every one of them, and nothing else is sent to
them. A peer that does not answer within `PEER_TIMEOUT_S` is reported with its error; the others still count.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx import AsyncClient

from rest.ui.task_metrics import TaskFigures

PEER_TIMEOUT_S = 3.0
TASK_METRICS_PATH = "/ui/api/task-metrics"


@dataclass(frozen=True)
class ClusterWorker:
    """A worker of the cluster: its id (`host:port`, as in statuses), its advertised URL and its slots."""

    worker_id: str
    url: str
    slots: tuple[int, ...] = ()
    local: bool = False


@dataclass
class ClusterView:
    """What a worker knows of its cluster: `workers()` lists them (this one marked `local`); `tls` is the
    context to call an https peer with (None: the system's trust store)."""

    workers: Callable[[], list[ClusterWorker]]
    tls: ssl.SSLContext | None = field(default=None, repr=False)


def single_worker(worker_id: str, url: str) -> ClusterView:
    """A standalone worker's view: itself alone."""
    return ClusterView(lambda: [ClusterWorker(worker_id, url, (), local=True)])


async def gather(
    view: ClusterView, local: Callable[[], list[TaskFigures]], authorization: str | None
) -> dict[str, Any]:
    """Every worker's task figures, and each worker with whether it answered."""
    workers = view.workers()
    headers = {"authorization": authorization} if authorization else {}
    async with AsyncClient(verify=view.tls or True, timeout=PEER_TIMEOUT_S, headers=headers) as client:
        results = await asyncio.gather(*(_figures_of(worker, local, client) for worker in workers))
    tasks: list[dict[str, Any]] = []
    listed: list[dict[str, Any]] = []
    for worker, (figures, error) in zip(workers, results, strict=True):
        listed.append(
            {
                "id": worker.worker_id,
                "url": worker.url,
                "slots": list(worker.slots),
                "local": worker.local,
                "error": error,
            }
        )
        tasks.extend({**figure, "worker": worker.worker_id} for figure in figures)
    return {"workers": listed, "tasks": tasks}


async def _figures_of(
    worker: ClusterWorker, local: Callable[[], list[TaskFigures]], client: AsyncClient
) -> tuple[Sequence[Mapping[str, Any]], str | None]:
    if worker.local:
        # Asking the task processes of this worker may block briefly: off the event loop.
        return list(await asyncio.to_thread(local)), None
    url = worker.url.rstrip("/") + TASK_METRICS_PATH
    try:
        response = await client.get(url, params={"scope": "worker"})
    except httpx.HTTPError as exc:
        detail = f": {exc}" if str(exc) else ""
        return [], f"{type(exc).__name__} from {url}{detail}"
    if response.status_code != 200:
        return [], f"{url} answered HTTP {response.status_code}"
    try:
        body = response.json()
        return [task for task in body["tasks"] if isinstance(task, dict)], None
    except (ValueError, KeyError, TypeError):
        return [], f"{url} answered something other than task figures"
