"""`rest.extension.classes`: load, configure and register the listed REST extensions."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

from connect.api.errors import ConfigError
from rest.extensions.api import ENTRY_POINT_GROUP, Authenticator, RestExtension, RestExtensionContext

log = logging.getLogger(__name__)

REST_EXTENSION_CLASSES = "rest.extension.classes"


class RestExtensions:
    """The extensions a worker's REST server runs, and the authenticators they registered."""

    def __init__(self, extensions: list[RestExtension], authenticators: list[Authenticator]) -> None:
        self.extensions = extensions
        self.authenticators = authenticators

    def close(self) -> None:
        for extension in self.extensions:
            try:
                extension.close()
            except Exception:
                log.exception("Error while closing the REST extension %s", type(extension).__name__)


def load_rest_extensions(
    names: Sequence[str], worker_config: Mapping[str, str], environ: Mapping[str, str]
) -> RestExtensions:
    """Build, configure and register each named extension in order; ConfigError naming the one that fails."""
    available = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    context = RestExtensionContext(worker_config, environ)
    loaded: list[RestExtension] = []
    try:
        for name in names:
            extension = _instantiate(name, available)
            extension.configure(worker_config)
            extension.register(context)
            loaded.append(extension)
            log.info("REST extension %s registered", name)
    except BaseException:
        RestExtensions(loaded, []).close()
        raise
    return RestExtensions(loaded, context.authenticators)


def _instantiate(name: str, available: Mapping[str, metadata.EntryPoint]) -> RestExtension:
    extension: RestExtension = instantiate_plugin(
        name, available, REST_EXTENSION_CLASSES, RestExtension, "REST extension"
    )
    return extension


def instantiate_plugin(
    name: str, available: Mapping[str, metadata.EntryPoint], key: str, base: type[object], what: str
) -> Any:
    """A `base` (a `what`) built from `name`: an entry point name, the simple name of a (Java) class name, or a Python
    import path; ConfigError naming `key` when none of those gives a `base`."""
    entry_point = available.get(name) or available.get(name.rsplit(".", 1)[-1])
    if entry_point is not None:
        target = entry_point.value
        load = entry_point.load
    elif ":" in name or "." in name:
        target = name
        module_name, _, attribute = name.rpartition(":") if ":" in name else name.rpartition(".")

        def load() -> object:
            return getattr(importlib.import_module(module_name), attribute)

    else:
        installed = ", ".join(sorted(available)) or "none"
        raise ConfigError(f"{key}: no {what} named {name} is installed (installed: {installed})")
    try:
        cls = load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{key}: cannot load {name} ({target}): {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"{key}: {target} is not a {base.__name__}")
    return cls()
