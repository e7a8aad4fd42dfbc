"""Runtime errors that map to specific REST answers (the REST layer translates every ConnectError once).

| error                      | HTTP |
|----------------------------|------|
| ConfigError, BadRequestError | 400 |
| ForbiddenError             | 403 |
| NotFoundError              | 404 |
| AlreadyExistsError, ConflictError | 409 |
| RequestTimeoutError, other ConnectError | 500 |
"""

from __future__ import annotations

from connect.api.errors import ConnectError, RetriableError


class BadRequestError(ConnectError):
    """The request itself is wrong (e.g. a name mismatch, offsets changed while the connector runs)."""


class ForbiddenError(ConnectError):
    """The request is valid but switched off by worker config (e.g. topic tracking disabled)."""


class ConflictError(RetriableError):
    """Momentarily impossible (e.g. a rebalance is under way); Kafka Connect clients retry these (409)."""


class RequestTimeoutError(ConnectError):
    """The herder did not finish the request in time (500 "Request timed out")."""
