"""`distribution_version`: the version a plug-in reports, read from the distribution that installed it.

Every `Connector`, `Task`, `Converter` and `Transformation` reports a version (`GET /connector-plugins`
shows it). A plug-in shipped as a pip package reports its package's version: `distribution_version("my-
connectors")`. kconnect's own plug-ins and the worker itself report the `kconnect` distribution's.
"""

from __future__ import annotations

import functools
import importlib.metadata

from connect.api.connector import UNDEFINED_VERSION


@functools.cache
def distribution_version(distribution: str, fallback: str = UNDEFINED_VERSION) -> str:
    """The installed version of `distribution`; `fallback` for a source tree that was never installed.

    Cached: the installed metadata does not change while a worker runs, and plug-ins are asked often.
    """
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return fallback
