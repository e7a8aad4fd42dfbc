"""The REST listener of a worker process, bound before its herder exists, and the worker id it gives.

A worker's id is the `host:port` of its advertised REST URL, known only once the listener is bound (it may
ask for port 0). Both modes bind first with a `DeferredApp` (503 "starting"), then build the parts that
need the id, then attach the real app. Called by each mode's process object on its caller's thread.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from connect.runtime.config.worker_config import WorkerConfig
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from workers.common.deferred_app import DeferredApp


def start_rest_listener(config: WorkerConfig) -> tuple[RestServer, DeferredApp]:
    """Bind and serve the worker's listeners with a placeholder app; attach the real one to the returned
    `DeferredApp`. ConfigError (naming the key) for bad listener or TLS settings, before anything is bound."""
    deferred = DeferredApp()
    rest = rest_server_for(config, deferred, os.environ)
    rest.start()
    return rest, deferred


def worker_id_of(advertised_url: str) -> str:
    """`host:port` of an advertised URL: Kafka Connect's worker id, shown in every status."""
    url = urlsplit(advertised_url)
    return f"{url.hostname}:{url.port}"
