"""Classes named in a config (`module:Class` or `module.Class`), imported and instantiated with the
config key's name in every error. Shared by the partitioner and timestamp extractor loaders."""

from __future__ import annotations

import importlib

from connect.api import ConfigError


def import_class(name: str, key: str) -> object:
    """The class (or any attribute) `name` points at; ConfigError naming `key` if it cannot be imported."""
    module_name, sep, attr = name.partition(":")
    if not sep:
        module_name, _, attr = name.rpartition(".")
    if not module_name or not attr:
        raise ConfigError(f"Invalid value {name} for configuration {key}: unknown class")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"Invalid value {name} for configuration {key}: {exc}") from None


def instantiate(cls: object, base: type, name: str, key: str) -> object:
    """A new `cls()`, once it is known to be a subclass of `base`."""
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"Invalid value {name} for configuration {key}: not a {base.__name__}")
    return cls()
