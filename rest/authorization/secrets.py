"""Configs as a caller who may view a connector but not edit it sees them: secret values `[hidden]`.

A secret is a value of a key the connector's plug-in types PASSWORD, of a Kafka client secret under any
prefix (`sasl.jaas.config`, `ssl.key.password`, `consumer.override.sasl.jaas.config`, ...), or of a key whose
last part names a password or secret (so a plug-in that forgot the type leaks nothing). A config provider's
reference (`${file:/etc/secrets:password}`) is shown as it is: it names where a secret is, not the secret.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping

from starlette.requests import HTTPConnection

from connect.api.errors import ConnectError
from connect.runtime.config.providers import HIDDEN
from connect.runtime.config.providers.worker_secrets import is_client_secret
from connect.runtime.herder import Herder
from rest.authorization.api import Operation
from rest.authorization.enforcement import allows

_REFERENCE = re.compile(r"\$\{[^}]*\}")
_SECRET_WORDS = ("password", "secret")


class SecretKeys:
    """The PASSWORD keys of each connector plug-in, looked up once per class."""

    def __init__(self, herder: Herder) -> None:
        self._herder = herder
        self._by_class: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    def of(self, connector_class: str | None) -> frozenset[str]:
        if not connector_class:
            return frozenset()
        with self._lock:
            known = self._by_class.get(connector_class)
        if known is not None:
            return known
        try:
            keys = frozenset(
                k.name for k in self._herder.connector_plugin_config(connector_class) if k.type == "PASSWORD"
            )
        except ConnectError:
            return frozenset()  # an unknown plug-in: only the name rules below apply
        with self._lock:
            self._by_class[connector_class] = keys
        return keys

    def hide(self, config: Mapping[str, str]) -> dict[str, str]:
        """`config` with every secret value `[hidden]`."""
        password_keys = self.of(config.get("connector.class"))
        return {key: HIDDEN if _secret(key, value, password_keys) else value for key, value in config.items()}


def _secret(key: str, value: str | None, password_keys: frozenset[str]) -> bool:
    if value is None or value == "" or _REFERENCE.fullmatch(value.strip()):
        return False
    last = key.rsplit(".", 1)[-1].lower()
    return key in password_keys or is_client_secret(key) or any(word in last for word in _SECRET_WORDS)


def config_for(connection: HTTPConnection, connector: str, config: Mapping[str, str]) -> dict[str, str]:
    """`config` of `connector` as the caller may see it: whole for one who may edit the connector."""
    if allows(connection, Operation.CONNECTOR_READ_SECRETS, connector):
        return dict(config)
    keys: SecretKeys = connection.app.state.secret_keys
    return keys.hide(config)
