"""`WorkerSecrets`: what the Worker does with config provider placeholders in connector configs.

Herders hand the Worker the configs as stored, placeholders and all. Here they are resolved just before a
connector or task instance gets them; every value substituted is added to the redactor (so traces, logs and
validation output hide it); task configs a connector derived from resolved values get their placeholders
back before the herder stores them; and connectors whose providers gave a TTL are watched for changes
(`ConfigReloads`). Called from the herder's and REST threads; thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from connect.api.config import ConfigDef, ConfigType
from connect.runtime.config.providers.config_transformer import ConfigTransformer, Resolved
from connect.runtime.config.providers.redaction import SecretRedactor
from connect.runtime.config.providers.reload import ConfigReloads


class WorkerSecrets:
    def __init__(self, transformer: ConfigTransformer, redactor: SecretRedactor) -> None:
        self.transformer = transformer
        self.redactor = redactor
        self._lock = threading.Lock()
        self._raw: dict[str, dict[str, str]] = {}
        self._on_change: Callable[[str], object] | None = None
        self._reloads = ConfigReloads(transformer, self._changed)

    def on_change(self, restart: Callable[[str], object]) -> None:
        """Who restarts a connector (and its tasks) whose provider values changed: the herder."""
        self._on_change = restart

    def resolve(self, config: Mapping[str, str]) -> Resolved:
        """`config` resolved; its secrets join the redactor. ConfigError if a provider cannot read a path."""
        resolved = self.transformer.transform(config)
        self.redactor.add(resolved.secrets)
        return resolved

    def connector_config(self, name: str, raw: Mapping[str, str]) -> dict[str, str]:
        """The config a connector instance starts with; remembered raw for `task_configs_to_store`."""
        resolved = self.resolve(raw)
        with self._lock:
            self._raw[name] = dict(raw)
        if self._on_change is not None:
            self._reloads.watch(name, raw, resolved)
        return resolved.config

    def task_configs_to_store(self, name: str, configs: list[dict[str, str]]) -> list[dict[str, str]]:
        """Task configs with the connector's placeholders put back (nothing resolved is ever stored)."""
        with self._lock:
            raw = self._raw.get(name, {})
        return [ConfigTransformer.reverse(raw, config) for config in configs]

    def add_passwords(self, definition: ConfigDef | None, config: Mapping[str, str]) -> None:
        """Hide, like resolved values, the values `config` gives to PASSWORD keys of `definition` and to
        client secrets (`sasl.jaas.config`, `ssl.*.password`, ...) under any prefix (`producer.override.`,
        `consumer.`): Kafka types those PASSWORD too."""
        defined = definition.keys.items() if definition is not None else ()
        password_keys = {name for name, key in defined if key.type is ConfigType.PASSWORD}
        self.redactor.add(
            value for key, value in config.items() if value and (key in password_keys or is_client_secret(key))
        )

    def forget(self, name: str) -> None:
        with self._lock:
            self._raw.pop(name, None)
        self._reloads.forget(name)

    def close(self) -> None:
        self._reloads.close()
        self.transformer.close()

    def _changed(self, name: str) -> None:
        if self._on_change is not None:
            self._on_change(name)


# Client secrets Kafka types PASSWORD, by their un-prefixed names; with those Confluent's Schema Registry
# serde configs type PASSWORD (under `key.converter.` / `value.converter.`).
CLIENT_SECRETS = frozenset(
    {
        "sasl.jaas.config",
        "sasl.password",
        "sasl.oauthbearer.client.secret",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.keystore.key",
        "ssl.key.pem",
        "basic.auth.user.info",
        "bearer.auth.token",
        "bearer.auth.client.secret",
    }
)


def is_client_secret(key: str) -> bool:
    """A client secret, bare or under any prefix (`producer.`, `listeners.https.`, `consumer.override.`)."""
    return key in CLIENT_SECRETS or any(key.endswith("." + secret) for secret in CLIENT_SECRETS)
