"""`ConfigTransformer`: replaces `${alias:path:key}` / `${alias:key}` placeholders with providers' values
(Kafka's `ConfigTransformer` and `WorkerConfigTransformer`).

As Kafka: placeholders are grouped by alias and path so each provider is asked once per path; an unknown
alias or a key the provider does not have leaves the placeholder as written; TTLs are reported per
(alias, path). Connector configs are stored and shown with their placeholders; only the worker resolves
them, where it validates and starts connectors and tasks. `reverse` puts the placeholders back into task
configs a connector derived from resolved values, before they are stored (Kafka's `reverseTransform`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from connect.runtime.config.providers.loader import ConfigProviders

_PLACEHOLDER = re.compile(r"\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}")


def has_placeholder(value: str) -> bool:
    return _PLACEHOLDER.search(value) is not None


@dataclass(frozen=True)
class Resolved:
    """A config with its placeholders resolved; `secrets` are the values substituted (never to be shown),
    `ttls` the validity the providers gave, by (alias, path), in milliseconds."""

    config: dict[str, str] = field(repr=False)
    secrets: frozenset[str] = field(repr=False)
    ttls: Mapping[tuple[str, str], int] = field(default_factory=dict)

    @property
    def min_ttl_ms(self) -> int | None:
        return min(self.ttls.values()) if self.ttls else None


class ConfigTransformer:
    def __init__(self, providers: ConfigProviders) -> None:
        self._providers = providers

    @property
    def enabled(self) -> bool:
        return bool(self._providers)

    def transform(self, config: Mapping[str, str]) -> Resolved:
        """`config` with every resolvable placeholder replaced; ConfigError if a provider cannot read a path."""
        wanted: dict[tuple[str, str], set[str]] = {}
        for value in config.values():
            for match in _PLACEHOLDER.finditer(value):
                alias, path, key = match.group(1), match.group(2) or "", match.group(3)
                if self._providers.get(alias) is not None:
                    wanted.setdefault((alias, path), set()).add(key)
        if not wanted:
            return Resolved(dict(config), frozenset())
        found: dict[tuple[str, str], Mapping[str, str]] = {}
        ttls: dict[tuple[str, str], int] = {}
        for (alias, path), keys in wanted.items():
            provider = self._providers.get(alias)
            assert provider is not None
            data = provider.get(path, keys)
            found[(alias, path)] = data.data
            if data.ttl_ms is not None and data.ttl_ms >= 0:
                ttls[(alias, path)] = data.ttl_ms
        secrets: set[str] = set()

        def substitute(match: re.Match[str]) -> str:
            values = found.get((match.group(1), match.group(2) or ""), {})
            value = values.get(match.group(3))
            if value is None:
                return match.group(0)
            secrets.add(value)
            return value

        resolved = {key: _PLACEHOLDER.sub(substitute, value) for key, value in config.items()}
        return Resolved(resolved, frozenset(secrets), ttls)

    @staticmethod
    def reverse(raw_connector_config: Mapping[str, str], task_config: Mapping[str, str]) -> dict[str, str]:
        """`task_config` with the raw (placeholder) value of every key whose connector value had one."""
        restored = dict(task_config)
        for key, raw in raw_connector_config.items():
            if key in restored and has_placeholder(raw):
                restored[key] = raw
        return restored

    def close(self) -> None:
        self._providers.close()


def resolve_with_own_providers(props: Mapping[str, str]) -> dict[str, str]:
    """`props` resolved with the providers they declare themselves, then closed: how Kafka's `AbstractConfig`
    resolves a worker's properties (`${file:/etc/kafka/secrets.properties:ssl.keystore.password}`)."""
    providers = ConfigProviders.from_props(props)
    if not providers:
        return dict(props)
    transformer = ConfigTransformer(providers)
    try:
        return transformer.transform(props).config
    finally:
        transformer.close()
