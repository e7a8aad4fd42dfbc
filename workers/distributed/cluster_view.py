"""The dashboard's view of a distributed cluster: its workers are the owners of the slots (the slot claims
name each owner's advertised URL), plus this worker, which may own none.

A claim stays until another worker claims the slot, so a worker that died shows until its slots move
(one session timeout); the dashboard then reports it as not answering. Peers on https are called with
the trust and key stores of this worker's https listeners: the workers of a cluster share them.
"""

from __future__ import annotations

from connect.runtime.config.worker_config import WorkerConfig
from rest.listeners.addresses import HTTPS, parse_listeners
from rest.tls import LISTENERS_PREFIX, TlsSettings, client_context
from rest.ui import ClusterView, ClusterWorker
from workers.distributed.slot_log import SlotLog


def cluster_view(slot_log: SlotLog, worker_id: str, url: str, config: WorkerConfig) -> ClusterView:
    def workers() -> list[ClusterWorker]:
        slots: dict[str, list[int]] = {worker_id: []}
        urls = {worker_id: url}
        for slot, claim in sorted(slot_log.claims().items()):
            slots.setdefault(claim.worker, []).append(slot)
            urls.setdefault(claim.worker, claim.url)
        return [
            ClusterWorker(worker, urls[worker], tuple(owned), local=worker == worker_id)
            for worker, owned in sorted(slots.items())
        ]

    https = any(listener.protocol == HTTPS for listener in parse_listeners(",".join(config.listeners)))
    tls = client_context(TlsSettings.for_listeners(config.originals, LISTENERS_PREFIX)) if https else None
    return ClusterView(workers, tls)
