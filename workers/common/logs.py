"""Logging of a worker process, set up by its entry point: one stderr handler, Kafka Connect's line layout.

Lines look like Kafka's connect-log4j layout, `[time] LEVEL [connector|task-n] message (logger)`, where
the bracketed connector context comes from the runtime's `CURRENT_CONTEXT` and is left out outside
connectors and tasks.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from connect.runtime.config_providers import RedactingFilter, SecretRedactor
from connect.runtime.worker_task import ConnectorContextFilter

FORMAT = "[%(asctime)s] %(levelname)s %(connector_prefix)s%(message)s (%(name)s)"


class _ContextPrefix(ConnectorContextFilter):
    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        context = getattr(record, "connector_context", "")
        record.connector_prefix = f"[{context}] " if context else ""
        return True


def configure_logging(level: int | str = logging.INFO) -> None:
    """Replace the root logger's handlers with one stderr handler in the layout above."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_ContextPrefix())
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    # librdkafka's own log lines are noisy at INFO; its warnings still show.
    logging.getLogger("connect.runtime.kafka_clients.librdkafka").setLevel(logging.WARNING)


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
