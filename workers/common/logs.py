"""Logging of a worker process, set up by its entry point: one stderr handler, text or JSON lines.

`text` (the default) looks like Kafka's connect-log4j layout, `[time] LEVEL [connector|task-n] message
(logger)`, where the bracketed connector context comes from the runtime's `CURRENT_CONTEXT` and is left
out outside connectors and tasks. `json` (`log.format=json`, or `KCONNECT_LOG_FORMAT=json` through the
worker's environment keys) writes one JSON object a line for log shippers: see `JsonLogFormatter`.

Records relayed from task processes arrive with the context, thread and process id they were logged
with, so both formats show them like the worker's own.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from connect.runtime.config.providers import RedactingFilter, SecretRedactor
from connect.runtime.logs.context import ConnectorContextFilter

FORMAT = "[%(asctime)s] %(levelname)s %(connector_prefix)s%(message)s (%(name)s)"
LOG_FORMATS = ("text", "json")


class _ContextPrefix(ConnectorContextFilter):
    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        context = getattr(record, "connector_context", "")
        record.connector_prefix = f"[{context}] " if context else ""
        return True


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line: `time` (ISO 8601 UTC, ms), `level`, `logger`, `message`, `worker_id`,
    `thread`, `process`; inside a connector or task also `connector.context` (Kafka's MDC key, e.g.
    `my-sink|task-0`), `connector` and `task`; `exception` holds a traceback as one string.

    `worker_id` is None until the worker's REST listener is bound (the id is its advertised host:port)."""

    def __init__(self) -> None:
        super().__init__()
        self.worker_id: str | None = None

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "worker_id": self.worker_id,
            "thread": record.threadName,
            "process": record.process,
        }
        context = getattr(record, "connector_context", "")
        if context:
            connector, _, task = context.partition("|task-")
            entry["connector.context"] = context
            entry["connector"] = connector
            if task.isdigit():
                entry["task"] = int(task)
        exception = record.exc_text or (self.formatException(record.exc_info) if record.exc_info else None)
        if exception:
            entry["exception"] = exception
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


class WorkerLogging:
    """The handler `configure_logging` installed; `identify` adds the worker id to JSON lines from then on."""

    def __init__(self, formatter: logging.Formatter) -> None:
        self._formatter = formatter

    def identify(self, worker_id: str) -> None:
        if isinstance(self._formatter, JsonLogFormatter):
            self._formatter.worker_id = worker_id


def configure_logging(level: int | str = logging.INFO, log_format: str = "text") -> WorkerLogging:
    """Replace the root logger's handlers with one stderr handler writing `log_format` (text or json)."""
    handler = logging.StreamHandler(sys.stderr)
    formatter: logging.Formatter
    if log_format.lower() == "json":
        handler.addFilter(ConnectorContextFilter())
        formatter = JsonLogFormatter()
    else:
        handler.addFilter(_ContextPrefix())
        formatter = logging.Formatter(FORMAT)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    # librdkafka's own log lines are noisy at INFO; its warnings still show.
    logging.getLogger("connect.runtime.kafka.librdkafka").setLevel(logging.WARNING)
    return WorkerLogging(formatter)


def format_from_environment(environ: Mapping[str, str]) -> str:
    """The format to log in before the worker file is read: `KCONNECT_LOG_FORMAT`, else text."""
    value = str(environ.get("KCONNECT_LOG_FORMAT", "text")).lower()
    return value if value in LOG_FORMATS else "text"


def redact_logs(redactor: SecretRedactor) -> Callable[[], None]:
    """Hide `redactor`'s secrets in every line the root logger's handlers write; returns the undo."""
    redacting = RedactingFilter(redactor)
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(redacting)

    def undo() -> None:
        for handler in handlers:
            handler.removeFilter(redacting)

    return undo
