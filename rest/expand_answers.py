"""`GET /connectors?expand=...`, encoded once and served again for as long as nothing it shows has changed.

The answer lists every connector with its status and/or info: per-connector work (the herder's read, the
wire dicts, the encoding) of about 5 µs a connector, milliseconds with a few hundred, on a thread-pool
thread that must first win the interpreter lock from busy task threads, and behind the herder lock while
a write holds it. Clients poll it (dashboards, operators' scripts, Kafka Connect's own tooling) far more
often than connectors change.

A herder that versions its overviews (`SupportsOverviewVersions`) lets this keep the last encoded answer
of each combination of expansions with the version it was read at. While the herder's version is still
that one, the kept bytes are the answer, served on the event loop: no hand-over to the thread pool, no
herder lock, no per-connector work. Any change (a config, task configs, a status, a connector added or
deleted, a plug-in added) changes the version, and the next request reads the herder again on the thread
pool, as it always does for herders without versions.

Only the event loop reads and replaces the kept answers (the thread pool only builds them), so they need
no lock. Two reads racing to replace an answer may leave the older one kept: it is then read again.
"""

from __future__ import annotations

from collections.abc import Hashable

import orjson
from starlette.concurrency import run_in_threadpool

from connect.runtime.herder import ConnectorOverview, Herder, SupportsOverviewVersions
from rest import wire


class ExpandAnswers:
    """The encoded bodies of `GET /connectors?expand=...` over one herder."""

    def __init__(self, herder: Herder) -> None:
        self._herder = herder
        self._versioned = herder if isinstance(herder, SupportsOverviewVersions) else None
        self._kept: dict[tuple[bool, bool], tuple[Hashable, bytes]] = {}

    async def body(self, status: bool, info: bool) -> bytes:
        """The JSON body for the expansions asked for (status, info)."""
        herder = self._versioned
        if herder is None:
            return await run_in_threadpool(lambda: _encode(self._herder.connector_overviews(status, info)))
        kept = self._kept.get((status, info))
        if kept is not None and kept[0] == herder.overviews_version():
            return kept[1]
        version, body = await run_in_threadpool(lambda: _encode_versioned(herder, status, info))
        self._kept[(status, info)] = (version, body)
        return body


def _encode_versioned(herder: SupportsOverviewVersions, status: bool, info: bool) -> tuple[Hashable, bytes]:
    version, overviews = herder.versioned_overviews(status, info)
    return version, _encode(overviews)


def _encode(overviews: dict[str, ConnectorOverview]) -> bytes:
    return orjson.dumps({name: wire.connector_expansions(state, info) for name, (state, info) in overviews.items()})
