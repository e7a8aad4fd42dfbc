"""The one error tree of kconnect.

Every error a connector, converter or the runtime raises derives from `ConnectError`. Whether the
runtime retries is decided by type alone: `RetriableError` (and its subclasses) means "try the same
thing again later"; every other `ConnectError` is fatal for the task or request that raised it.
The REST layer translates these types to HTTP status codes once, at the edge.
"""

from __future__ import annotations


class ConnectError(Exception):
    """Root of all kconnect errors; fatal unless it is a `RetriableError`."""


class RetriableError(ConnectError):
    """A transient failure: the runtime retries the same operation (poll, put, send) after a back-off."""


class DataError(ConnectError):
    """A record or value could not be converted, validated or transformed."""


class ConfigError(ConnectError):
    """A configuration is missing, mistyped or invalid."""


class NotFoundError(ConnectError):
    """A named thing (connector, task, plug-in, logger) does not exist."""


class AlreadyExistsError(ConnectError):
    """Creating something that exists already, e.g. a connector with a name in use."""


class IllegalWorkerStateError(ConnectError):
    """The worker is in a state where the request cannot be served (e.g. shutting down)."""
