"""A user's config provider with a TTL, as a vault client would give: a properties file re-read on every
get, with `ttl.ms` from its params (Kafka's built-in providers never set one)."""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import ConfigData, ConfigProvider
from connect.runtime.config.providers import FileConfigProvider


class TtlFileConfigProvider(ConfigProvider):
    def __init__(self) -> None:
        self._files = FileConfigProvider()
        self._ttl_ms = 1000

    def configure(self, params: Mapping[str, str]) -> None:
        self._ttl_ms = int(params.get("ttl.ms", "1000"))

    def get(self, path: str, keys: set[str]) -> ConfigData:
        return ConfigData(self._files.get(path, keys).data, ttl_ms=self._ttl_ms)
