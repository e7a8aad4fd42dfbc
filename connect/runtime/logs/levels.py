"""Worker-local logger levels, as Kafka Connect's `/admin/loggers` endpoints read and change them.

Owns the last-modified times of the levels it set; the levels themselves live in Python's `logging`
hierarchy (the process's own unless another root is passed in, which tests do). REST handler threads
call it concurrently, so every public method holds one lock.

Names follow Kafka Connect: the root logger is called ``root`` (any case, or the empty string), levels
are log4j's names (``OFF FATAL ERROR WARN INFO DEBUG TRACE ALL``; Python's ``WARNING`` and
``CRITICAL`` are accepted as well), and setting a level on a name sets it on that logger and on every
existing descendant, creating the named logger if needed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from connect.api.errors import NotFoundError
from connect.runtime.domain.info import LoggerLevel

ROOT_LOGGER_NAME = "root"

_log = logging.getLogger(__name__)

# Python has no OFF or ALL; OFF sits above CRITICAL so nothing passes, ALL just above NOTSET because
# NOTSET means "inherit from the parent" rather than "everything".
_OFF = logging.CRITICAL + 10
_TRACE = 5
_ALL = 1

_LEVELS_BY_NAME: dict[str, int] = {
    "OFF": _OFF,
    "FATAL": logging.CRITICAL,
    "CRITICAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "WARNING": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": _TRACE,
    "ALL": _ALL,
}

_NAMES_BY_LEVEL: dict[int, str] = {
    _OFF: "OFF",
    logging.CRITICAL: "FATAL",
    logging.ERROR: "ERROR",
    logging.WARNING: "WARN",
    logging.INFO: "INFO",
    logging.DEBUG: "DEBUG",
    _TRACE: "TRACE",
    _ALL: "ALL",
}


def parse_level(text: str) -> int:
    """A level name (any case) → its `logging` number; NotFoundError with Kafka's text if unknown."""
    level = _LEVELS_BY_NAME.get(text.strip().upper())
    if level is None:
        # Kafka Connect answers an unknown level with 404 and exactly this text.
        raise NotFoundError(f"invalid log level '{text}'.")
    return level


def level_name(level: int) -> str:
    """A `logging` number → the name Kafka Connect clients know (``WARN``, not ``WARNING``)."""
    return _NAMES_BY_LEVEL.get(level) or logging.getLevelName(level)


class LoggerLevels:
    """Reads and sets logger levels on this worker, remembering when each one was last changed."""

    def __init__(self, root: logging.Logger | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self._root = root if root is not None else logging.getLogger()
        self._clock = clock
        self._last_modified: dict[str, int] = {}
        self._lock = threading.Lock()

    def all_levels(self) -> dict[str, LoggerLevel]:
        """Every logger with an explicitly set level, plus ``root``, sorted by name."""
        with self._lock:
            result = {
                logger.name: self._level_of(logger.name, logger.level)
                for logger in self._existing_loggers()
                if logger.level != logging.NOTSET
            }
            result[ROOT_LOGGER_NAME] = self._level_of(ROOT_LOGGER_NAME, self._root.level)
            return dict(sorted(result.items()))

    def level(self, name: str) -> LoggerLevel:
        """The effective level of an existing logger; NotFoundError "Logger {name} not found." if none."""
        with self._lock:
            if _is_root(name):
                return self._level_of(ROOT_LOGGER_NAME, self._root.level)
            for logger in self._existing_loggers():
                if logger.name == name:
                    return self._level_of(name, logger.getEffectiveLevel())
            raise NotFoundError(f"Logger {name} not found.")

    def set_level(self, namespace: str, level: str) -> list[str]:
        """Set `level` on `namespace` and all its existing descendants; returns their names, sorted.

        NotFoundError "invalid log level '<level>'." for an unknown level, as Kafka Connect answers.
        """
        number = parse_level(level)
        with self._lock:
            targets = self._loggers_under(namespace)
            now_ms = int(self._clock() * 1000)
            affected = []
            for name, logger in targets:
                # Kafka moves last_modified only when the level really changes.
                if logger.getEffectiveLevel() != number:
                    self._last_modified[name] = now_ms
                logger.setLevel(number)
                affected.append(name)
        _log.info("Set level of logger %s and its descendants to %s", namespace, level)
        return sorted(affected)

    def _loggers_under(self, namespace: str) -> list[tuple[str, logging.Logger]]:
        if _is_root(namespace):
            return [(logger.name, logger) for logger in self._existing_loggers()] + [(ROOT_LOGGER_NAME, self._root)]
        prefix = namespace + "."
        found = [
            (logger.name, logger)
            for logger in self._existing_loggers()
            if logger.name == namespace or logger.name.startswith(prefix)
        ]
        if not any(name == namespace for name, _ in found):
            found.append((namespace, self._root.manager.getLogger(namespace)))
        return found

    def _existing_loggers(self) -> list[logging.Logger]:
        # Placeholders stand for names that only have descendants; they have no level of their own.
        registry = dict(self._root.manager.loggerDict)
        return [logger for logger in registry.values() if isinstance(logger, logging.Logger)]

    def _level_of(self, name: str, level: int) -> LoggerLevel:
        return LoggerLevel(level=level_name(level), last_modified=self._last_modified.get(name))


def _is_root(name: str) -> bool:
    return name == "" or name.lower() == ROOT_LOGGER_NAME
