"""A `RestServer` for a worker's config: `listeners`, `admin.listeners`, their TLS keys and the advertised
address, read as Kafka Connect reads them. Every bad key stops start-up here with a ConfigError naming it."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.types import ASGIApp

from connect.runtime.config.worker_config import WorkerConfig
from rest.http_layers.stack import ADMIN_LISTENERS, http_stack
from rest.listeners.addresses import HTTPS, parse_listeners
from rest.listeners.server import RestServer
from rest.tls import ADMIN_LISTENERS_PREFIX, LISTENERS_PREFIX, TlsSettings, server_context


def rest_server_for(config: WorkerConfig, app: ASGIApp, environ: Mapping[str, str] | None = None) -> RestServer:
    """The (unstarted) REST server of a worker serving `app` behind the layers of `http_stack`.

    `environ` is where a REST extension finds its environment (the JAAS file); by default none."""
    listeners = ",".join(config.listeners)
    admin_value = config.get(ADMIN_LISTENERS)
    admin_listeners = None if admin_value is None else ",".join(admin_value)
    https_context = None
    if any(lst.protocol == HTTPS for lst in parse_listeners(listeners)):
        https_context = server_context(TlsSettings.for_listeners(config.originals, LISTENERS_PREFIX))
    admin_https_context = None
    if admin_listeners and any(
        lst.protocol == HTTPS for lst in parse_listeners(admin_listeners, key=ADMIN_LISTENERS, allow_empty=True)
    ):
        admin_https_context = server_context(TlsSettings.for_listeners(config.originals, ADMIN_LISTENERS_PREFIX))
    # Last: REST extensions are started here, and nothing after may fail without closing them.
    stack = http_stack(app, config, environ if environ is not None else {})
    return RestServer(
        stack.app,
        listeners,
        on_stop=stack.close,
        https_context=https_context,
        admin_listeners=admin_listeners,
        admin_https_context=admin_https_context,
        advertised_host=config.get("rest.advertised.host.name"),
        advertised_port=config.get("rest.advertised.port"),
        advertised_listener=config.get("rest.advertised.listener"),
    )
