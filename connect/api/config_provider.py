"""`ConfigProvider`: where `${alias:path:key}` placeholders in worker and connector configs get their values
(Kafka's `org.apache.kafka.common.config.provider.ConfigProvider`, KIP-297).

A worker declares providers by alias (`config.providers=file,vault`,
`config.providers.vault.class=<entry point name, Java class name or import path>`,
`config.providers.vault.param.<name>=<value>`). Lifecycle: built with no arguments, `configure` with the
`param.` settings (prefix removed), then `get` any number of times from any worker thread (make it
thread-safe), `close` when the worker stops. Third-party providers are found through the
`kconnect.config_providers` entry point group.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ConfigData:
    """Values found at one path, and how long they stay valid (`ttl_ms`, None: until the worker restarts).

    With a TTL, a connector whose config used these values is restarted once they change, if its
    `config.action.reload` is `restart` (the default)."""

    data: Mapping[str, str] = field(repr=False)
    ttl_ms: int | None = None


class ConfigProvider(ABC):
    """Resolves keys at a path (a file, a directory, a vault path) to secret or external values."""

    def configure(self, params: Mapping[str, str]) -> None:
        """Read the provider's `config.providers.<alias>.param.*` settings; ConfigError if one is bad."""

    @abstractmethod
    def get(self, path: str, keys: set[str]) -> ConfigData:
        """The values of `keys` at `path`; a key it does not have is left out (its placeholder then stays
        as written). ConfigError if the path cannot be read at all."""

    def close(self) -> None:
        """Release what the provider holds (clients, files)."""
