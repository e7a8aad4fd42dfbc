"""Kafka's three built-in config providers, under their Kafka names (`org.apache.kafka.common.config.provider`).

- `FileConfigProvider`: `${file:/path/to/file.properties:key}`, a Java properties file's entries.
- `DirectoryConfigProvider`: `${directory:/path/to/dir:name}`, the content of the regular file `name` in
  the directory (not recursive), as Kubernetes mounts secrets.
- `EnvVarConfigProvider` (KIP-887): `${env:NAME}`, an environment variable; the path must be empty, and
  `allowlist.pattern` (a regex the whole name must match, default `.*`) limits which ones may be read.

File and directory providers take `allowed.paths` (comma-separated; unset: any path): a path outside them
gives no data and a warning, as in Kafka. None of them sets a TTL (values never expire), as in Kafka.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path

from connect.api.config_provider import ConfigData, ConfigProvider
from connect.api.errors import ConfigError
from connect.runtime.config.java_properties import read_properties

log = logging.getLogger(__name__)

ALLOWED_PATHS = "allowed.paths"
ALLOWLIST_PATTERN = "allowlist.pattern"


class _AllowedPaths:
    """Kafka's `AllowedPaths`: normalised absolute paths a provider may read under (None: anywhere)."""

    def __init__(self, value: str | None) -> None:
        self._roots = None
        if value is not None and value.strip():
            roots = [Path(item.strip()) for item in value.split(",") if item.strip()]
            relative = [str(root) for root in roots if not root.is_absolute()]
            if relative:
                raise ConfigError(f"{ALLOWED_PATHS} must hold absolute paths, not {', '.join(relative)}")
            self._roots = [Path(os.path.normpath(root)) for root in roots]

    def allows(self, path: str) -> bool:
        if self._roots is None:
            return True
        normal = normalised(path)
        return any(normal == root or root in normal.parents for root in self._roots)


def normalised(path: str) -> Path:
    """The absolute path with `.` and `..` resolved lexically, as Kafka's `Path.normalize()`: what is checked
    against `allowed.paths` is what is read."""
    return Path(os.path.normpath(os.path.abspath(path)))


class _PathConfigProvider(ConfigProvider):
    """A provider that reads under a path, limited to Kafka's `allowed.paths` when it is set."""

    def __init__(self) -> None:
        self._allowed = _AllowedPaths(None)

    def configure(self, params: Mapping[str, str]) -> None:
        self._allowed = _AllowedPaths(params.get(ALLOWED_PATHS))

    def get(self, path: str, keys: set[str]) -> ConfigData:
        if not path:
            return ConfigData({})
        if not self._allowed.allows(path):
            log.warning("The path %s is not allowed to be accessed (%s)", path, ALLOWED_PATHS)
            return ConfigData({})
        return ConfigData(self._read(path, keys))

    def _read(self, path: str, keys: set[str]) -> dict[str, str]:
        raise NotImplementedError


class FileConfigProvider(_PathConfigProvider):
    def _read(self, path: str, keys: set[str]) -> dict[str, str]:
        try:
            entries = read_properties(normalised(path))
        except OSError as exc:
            raise ConfigError(f"Could not read properties from file {path}: {exc.strerror}") from exc
        return {key: entries[key] for key in keys if key in entries}


class DirectoryConfigProvider(_PathConfigProvider):
    def _read(self, path: str, keys: set[str]) -> dict[str, str]:
        directory = normalised(path)
        if not directory.is_dir():
            log.warning("Expected a directory, but %s is not one", path)
            return {}
        data = {}
        for key in keys:
            # A key names a file directly in the directory: never a path that leads out of it.
            if not key or "/" in key or key in (".", ".."):
                continue
            file = directory / key
            if file.is_file():
                try:
                    data[key] = file.read_text(encoding="utf-8")
                except OSError as exc:
                    raise ConfigError(f"Could not read file {file}: {exc.strerror}") from exc
        return data


class EnvVarConfigProvider(ConfigProvider):
    def __init__(self) -> None:
        self._allowlist = re.compile(".*")

    def configure(self, params: Mapping[str, str]) -> None:
        pattern = params.get(ALLOWLIST_PATTERN)
        if pattern is not None:
            try:
                self._allowlist = re.compile(pattern)
            except re.error as exc:
                raise ConfigError(f"Invalid {ALLOWLIST_PATTERN} '{pattern}': {exc}") from exc

    def get(self, path: str, keys: set[str]) -> ConfigData:
        if path:
            raise ConfigError(f"EnvVarConfigProvider takes no path, but '{path}' was given: use ${{env:NAME}}")
        environ = os.environ
        return ConfigData(
            {key: environ[key] for key in keys if key in environ and self._allowlist.fullmatch(key) is not None}
        )


BUILTIN_PROVIDERS: Mapping[str, type[ConfigProvider]] = {
    "FileConfigProvider": FileConfigProvider,
    "DirectoryConfigProvider": DirectoryConfigProvider,
    "EnvVarConfigProvider": EnvVarConfigProvider,
}
