"""What a task process sends to its worker: statuses, offset reads and writes, log records.

The task runner inside a task process is the ordinary one (`WorkerSourceTask`, `WorkerSinkTask`); it
is given these stand-ins for the worker's status listener and offset store, which pass everything over
the channel to the worker process, where the real ones live (`parent.ProcessWorkerTask` serves them).
Offsets stay the worker's: a standalone worker's file store or a distributed worker's offsets topic.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.logs.context import CURRENT_CONTEXT
from connect.runtime.stores import OffsetRecord
from connect.runtime.task_process.channel import Channel

# The offset store's own waits happen in the worker; the call waits a little longer than the flush.
_CALL_MARGIN_S = 5.0


class RelayedStatus:
    """The task runner's `StatusListener`: task transitions and used topics go to the worker."""

    def __init__(self, channel: Channel, key: int) -> None:
        self._channel = channel
        self._key = key  # the worker's name for the task (a task id may be here twice: a late stopper)
        self._muted = False

    def mute(self) -> None:
        """Send no more statuses: what the task says from now on may be older than what another worker
        wrote meanwhile, and the worker may not have read that yet."""
        self._muted = True

    def on_task_startup(self, task: ConnectorTaskId) -> None:
        self._status("on_task_startup")

    def on_task_pause(self, task: ConnectorTaskId) -> None:
        self._status("on_task_pause")

    def on_task_resume(self, task: ConnectorTaskId) -> None:
        self._status("on_task_resume")

    def on_task_failure(self, task: ConnectorTaskId, trace: str) -> None:
        self._status("on_task_failure", trace)

    def on_task_problem(self, task: ConnectorTaskId, trace: str) -> None:
        self._status("on_task_problem", trace)

    def on_task_shutdown(self, task: ConnectorTaskId) -> None:
        self._status("on_task_shutdown")

    def on_task_restart(self, task: ConnectorTaskId) -> None:
        self._status("on_task_restart")

    def _status(self, call: str, *args: str) -> None:
        if not self._muted:
            self._channel.note("status", self._key, call, args)

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        raise NotImplementedError("a task process never deletes statuses")

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self._channel.note("topic", self._key, topic)

    # A task process runs no connector instance.
    def on_connector_startup(self, connector: str) -> None:
        raise NotImplementedError("a task process runs no connector")

    on_connector_pause = on_connector_resume = on_connector_shutdown = on_connector_startup
    on_connector_stopped = on_connector_restart = on_connector_deletion = on_connector_startup

    def on_connector_failure(self, connector: str, trace: str) -> None:
        raise NotImplementedError("a task process runs no connector")


class RelayedOffsetStore:
    """The task runner's `OffsetStore`: the worker's store answers every read and write."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def start(self) -> None:
        pass  # the worker started its store

    def stop(self) -> None:
        pass

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        result: dict[bytes, bytes] = self._channel.call("offsets.get", list(keys))
        return result

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        # A note, not a call: the worker applies notes in order before it reads the next message, so a
        # `get` or `flush` made after this sees it, and a commit costs one round trip (the flush), not two.
        self._channel.note("offsets.set", dict(values))

    def flush(self, timeout: float | None = None) -> None:
        wait = None if timeout is None else timeout + _CALL_MARGIN_S
        self._channel.call("offsets.flush", timeout, timeout=wait)

    def snapshot(self) -> dict[bytes, bytes]:
        result: dict[bytes, bytes] = self._channel.call("offsets.snapshot")
        return result


class RelayedTransactionalOffsetStore(RelayedOffsetStore):
    """The offset store of an exactly-once source task (`TransactionalOffsetStore`): the task writes its
    offsets itself, in its transaction, as records the worker's store lays out (topic, partition)."""

    def __init__(self, channel: Channel, topic: str) -> None:
        super().__init__(channel)
        self.topic = topic

    def offset_records(self, values: Mapping[bytes, bytes | None]) -> list[OffsetRecord]:
        result: list[OffsetRecord] = self._channel.call("offsets.records", dict(values))
        return result


class RelayedLogHandler(logging.Handler):
    """Sends each log record of the task process to the worker, which logs it through its own handlers."""

    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self._channel = channel

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._channel.note("log", log_record_fields(record, self.formatter or _PLAIN))
        except Exception:
            self.handleError(record)


_PLAIN = logging.Formatter()


def log_record_fields(record: logging.LogRecord, formatter: logging.Formatter) -> dict[str, Any]:
    """What `logging.makeLogRecord` needs to rebuild the record in the worker: the message already
    formatted with its arguments, the traceback as text (neither needs to be picklable then)."""
    exc_text = formatter.formatException(record.exc_info) if record.exc_info else record.exc_text
    return {
        "name": record.name,
        "levelno": record.levelno,
        "levelname": record.levelname,
        "msg": record.getMessage(),
        "exc_text": exc_text,
        "created": record.created,
        "msecs": record.msecs,
        "threadName": record.threadName,
        "process": record.process,
        "pathname": record.pathname,
        "lineno": record.lineno,
        "funcName": record.funcName,
        "connector_context": getattr(record, "connector_context", None) or CURRENT_CONTEXT.get(),
    }
