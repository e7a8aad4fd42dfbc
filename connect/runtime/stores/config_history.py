"""`ConfigHistory`: the versions of each connector's config, kept in memory where no log keeps them.

A standalone worker's store keeps one (its connectors live only in memory too); a distributed worker reads
them from the config topic instead (`ConfigLog.connector_history`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from connect.runtime.domain.info import ConfigVersion
from connect.runtime.domain.requester import current_requester

# Versions kept per connector (the oldest go first); their numbering goes on.
HISTORY_LIMIT = 100


class ConfigHistory:
    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self._limit = limit
        self._versions: dict[str, list[ConfigVersion]] = {}

    def record(self, name: str, config: Mapping[str, str] | None) -> None:
        """A new version of `name` (None: deleted), by the requester of the moment."""
        versions = self._versions.setdefault(name, [])
        number = versions[-1].version + 1 if versions else 1
        stored = dict(config) if config is not None else None
        versions.append(ConfigVersion(number, stored, int(time.time() * 1000), current_requester()))
        del versions[: -self._limit]

    def of(self, name: str) -> list[ConfigVersion]:
        """`name`'s versions, oldest first (empty if it never had one)."""
        return list(self._versions.get(name, ()))
