"""`ClusterLoggers`: applies the cluster-wide logger levels of the config log (KIP-976) to this worker.

`PUT /admin/loggers/<namespace>?scope=cluster` writes a `logger-cluster-<namespace>` record (the
distributed herder); every worker applies each such record when it reads it, the writer included (its
write returns once read back, so the level is in effect here when the request answers). A level set
this way is like one set through this worker's own REST API: it moves `last_modified`, and a later
worker-scope change overrides it here until the next cluster-scope record.

A worker also applies the levels written before it started, in the order of their latest records, so
that a worker joining the cluster later logs like the others. Kafka Connect's workers ignore such
records (KIP-976 makes cluster-scope levels last only while the workers that saw them run); kconnect
keeps them because a replacement worker should not log differently from the one it replaces.

Threads: `start` on the caller's; records on the config log's reader thread (listeners must be quick:
setting a level is). One lock orders the replay at start against records read meanwhile.
"""

from __future__ import annotations

import logging
import threading

from connect.api.errors import NotFoundError
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.stores import ChangeKind, ConfigChange
from workers.distributed.ports import ConfigLogPort

log = logging.getLogger(__name__)


class ClusterLoggers:
    def __init__(self, config_log: ConfigLogPort, loggers: LoggerLevels) -> None:
        self._config = config_log
        self._loggers = loggers
        self._lock = threading.Lock()
        self._applied_until = -1  # config-log offset of the next record the replay did not cover

    def start(self) -> None:
        """Listen for new records, then apply the levels already in the log (the config log is started)."""
        with self._lock:
            self._config.add_listener(self._changed)
            snapshot = self._config.snapshot()
            for namespace, level in snapshot.logger_levels.items():
                self._apply(namespace, level)
            self._applied_until = snapshot.offset
        if snapshot.logger_levels:
            log.info("Applied %d cluster-wide logger level(s) from the config log", len(snapshot.logger_levels))

    def _changed(self, change: ConfigChange) -> None:
        if change.kind is not ChangeKind.LOGGER_LEVEL:
            return
        with self._lock:
            if change.offset < self._applied_until:
                return  # the replay at start covered it
            level = self._config.snapshot().logger_levels.get(change.name)
            if level is None:
                return  # a tombstone: Kafka ignores those too, the levels stay as they are
            self._apply(change.name, level)
            log.info("Cluster-wide logger level: %s set to %s", change.name or "root", level)

    def _apply(self, namespace: str, level: str) -> None:
        try:
            self._loggers.set_level(namespace, level)
        except NotFoundError:
            log.error("Ignoring the cluster-wide level %r of logger %s: not a log level", level, namespace)
