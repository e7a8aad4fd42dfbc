"""The version kconnect's own plug-ins (converters, transforms, predicates) report."""

from __future__ import annotations

import functools
import importlib.metadata


@functools.cache
def runtime_version() -> str:
    try:
        return importlib.metadata.version("kconnect")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
