"""The version the sink reports: the installed kconnect distribution's."""

from __future__ import annotations

import importlib.metadata


def sink_version() -> str:
    try:
        return importlib.metadata.version("kconnect")
    except importlib.metadata.PackageNotFoundError:
        return "undefined"  # a source tree that was never installed
