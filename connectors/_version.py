"""The version first-party connectors report: the installed kconnect distribution's."""

from __future__ import annotations

import importlib.metadata

from connect.api.connector import UNDEFINED_VERSION


def kconnect_version() -> str:
    try:
        return importlib.metadata.version("kconnect")
    except importlib.metadata.PackageNotFoundError:
        # Running from a source tree that was never installed.
        return UNDEFINED_VERSION
