"""TLS for the REST listeners with Kafka Connect's `ssl.*` keys: settings, stores, and `SSLContext`s."""

from rest.tls.context import client_context, server_context
from rest.tls.settings import ADMIN_LISTENERS_PREFIX, LISTENERS_PREFIX, StoreSettings, TlsSettings

__all__ = [
    "ADMIN_LISTENERS_PREFIX",
    "LISTENERS_PREFIX",
    "StoreSettings",
    "TlsSettings",
    "client_context",
    "server_context",
]
