"""Builds a REST app over a `FakeHerder` for in-process tests, with a private logging hierarchy."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from tests.support.asgi_client import AsgiClient
from tests.support.fake_herder import FakeHerder


def isolated_root_logger() -> logging.Logger:
    """A root logger with its own manager, so tests can set levels without touching the process's."""
    root = logging.RootLogger(logging.WARNING)
    root.manager = logging.Manager(root)
    return root


@dataclass
class RestHarness:
    herder: FakeHerder
    loggers: LoggerLevels
    root_logger: logging.Logger
    client: AsgiClient


def rest_harness(herder: FakeHerder | None = None, *, clock: Callable[[], float] | None = None) -> RestHarness:
    herder = herder if herder is not None else FakeHerder()
    root = isolated_root_logger()
    loggers = LoggerLevels(root) if clock is None else LoggerLevels(root, clock=clock)
    return RestHarness(herder, loggers, root, AsgiClient(create_app(herder, loggers=loggers)))


def file_source_config(**extra: object) -> dict[str, object]:
    """A config the FakeHerder accepts for its file source plug-in."""
    return {"connector.class": "FileStreamSource", "file": "/tmp/in.txt", "topic": "lines", **extra}
