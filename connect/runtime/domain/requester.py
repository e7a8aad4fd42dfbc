"""Who asked for the change being made: the authenticated REST user, carried to the stores that record it.

The REST layer sets it for the request (`acting_as`); a config store reads it when it writes a connector's
config (`current_requester`), so the config's history says who made each version. A context variable, so
it follows the request into the thread pool that runs its handler and no further.
"""

from __future__ import annotations

from contextvars import ContextVar

_REQUESTER: ContextVar[str | None] = ContextVar("kconnect_requester", default=None)


def acting_as(user: str | None) -> None:
    """Record `user` as the one asking, for the rest of the current request."""
    _REQUESTER.set(user)


def current_requester() -> str | None:
    return _REQUESTER.get()
