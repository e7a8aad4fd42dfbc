"""The connector context of log records: `CURRENT_CONTEXT` carries `<connector>|task-<n>` (or just the
connector name) on the thread that runs a task or connector, and `ConnectorContextFilter` puts it on each
record, so entry points may show `%(connector_context)s` (Kafka Connect's MDC `connector.context`).
"""

from __future__ import annotations

import contextvars
import logging

CURRENT_CONTEXT: contextvars.ContextVar[str] = contextvars.ContextVar("kconnect_connector_context", default="")


class ConnectorContextFilter(logging.Filter):
    """Adds `connector_context` (e.g. `my-sink|task-0`, empty outside tasks) to every log record; a record
    relayed from a task process keeps the context it was logged with."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.connector_context = getattr(record, "connector_context", None) or CURRENT_CONTEXT.get()
        return True
