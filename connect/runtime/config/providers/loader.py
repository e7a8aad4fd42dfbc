"""`ConfigProviders`: the providers a config declares (`config.providers` and its sub-keys), built and
configured, by alias. Used for worker properties (then closed) and by the Worker for connector configs.

`config.providers.<alias>.class` names a built-in by Kafka's class name or simple name
(`org.apache.kafka.common.config.provider.FileConfigProvider`), an entry point of the
`kconnect.config_providers` group, or a Python import path. Every failure is a ConfigError naming the key.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from importlib import metadata

from connect.api.config_provider import ConfigProvider
from connect.api.errors import ConfigError
from connect.runtime.config.providers.builtin import BUILTIN_PROVIDERS
from connect.runtime.domain.moved_modules import current_path

log = logging.getLogger(__name__)

CONFIG_PROVIDERS = "config.providers"
ENTRY_POINT_GROUP = "kconnect.config_providers"


class ConfigProviders:
    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self._providers = dict(providers)

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> ConfigProviders:
        """The providers `props` declares (none if `config.providers` is unset or empty)."""
        aliases = [alias.strip() for alias in props.get(CONFIG_PROVIDERS, "").split(",") if alias.strip()]
        built: dict[str, ConfigProvider] = {}
        try:
            for alias in aliases:
                built[alias] = _build(alias, props)
        except BaseException:
            cls(built).close()
            raise
        return cls(built)

    def get(self, alias: str) -> ConfigProvider | None:
        return self._providers.get(alias)

    def __bool__(self) -> bool:
        return bool(self._providers)

    def close(self) -> None:
        for alias, provider in self._providers.items():
            try:
                provider.close()
            except Exception:
                log.exception("Error while closing config provider %s", alias)


def _build(alias: str, props: Mapping[str, str]) -> ConfigProvider:
    class_key = f"{CONFIG_PROVIDERS}.{alias}.class"
    class_name = props.get(class_key, "").strip()
    if not class_name:
        raise ConfigError(f'Missing required configuration "{class_key}" for the config provider {alias}')
    provider_class = _provider_class(class_name, class_key)
    provider = provider_class()
    param_prefix = f"{CONFIG_PROVIDERS}.{alias}.param."
    params = {key[len(param_prefix) :]: value for key, value in props.items() if key.startswith(param_prefix)}
    try:
        provider.configure(params)
    except ConfigError as exc:
        raise ConfigError(f"Config provider {alias} ({class_key}={class_name}): {exc}") from exc
    return provider


def _provider_class(class_name: str, class_key: str) -> type[ConfigProvider]:
    simple = class_name.rsplit(".", 1)[-1]
    if simple in BUILTIN_PROVIDERS and (class_name == simple or class_name.startswith("org.apache.kafka.")):
        return BUILTIN_PROVIDERS[simple]
    entry_points = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    entry_point = entry_points.get(class_name) or entry_points.get(simple)
    try:
        if entry_point is not None:
            loaded = entry_point.load()
        elif "." in class_name or ":" in class_name:
            separator = ":" if ":" in class_name else "."
            module_name, _, attribute = current_path(class_name).rpartition(separator)
            loaded = getattr(importlib.import_module(module_name), attribute)
        else:
            raise ConfigError(f"Invalid value {class_name} for configuration {class_key}: no such config provider")
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"Invalid value {class_name} for configuration {class_key}: {exc}") from exc
    if not (isinstance(loaded, type) and issubclass(loaded, ConfigProvider)):
        raise ConfigError(f"Invalid value {class_name} for configuration {class_key}: not a ConfigProvider")
    return loaded
