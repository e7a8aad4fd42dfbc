"""`Channel`: one end of the link between a worker and one of its task processes.

A local socket pair carries pickled messages (`multiprocessing.connection.Connection` frames them).
Either end may send a one-way note (`note`: statuses, log records, target state changes, stop) or make a
call and wait for its reply (`call`: the task's offset reads and flushes, which the worker's store
serves; later, metrics gathered from each process). Each end names what it serves in `handlers`.

One reader thread per end runs the note handlers in arrival order, so the notes of one sender are applied
in the order they were sent. Calls are served on a few threads of their own, so that one that waits (an
offset flush of one task) holds up neither the notes nor the calls of the other tasks of a process; a
caller waits for each reply, so the calls of one task thread still run in the order it made them. A note
handler must not `call` the other end itself: the reply would wait behind it. When the other end goes
away (its process ended or was killed) every waiting call fails and `on_closed` runs once, on the reader
thread.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from connect.api.errors import ConnectError

log = logging.getLogger(__name__)

# Calls served at once, per channel: the tasks of a process rarely wait on more than this together.
_CALL_THREADS = 4

Handler = Callable[..., Any]


class ChannelClosedError(ConnectError):
    """The other end of a task process's channel is gone."""


class _PendingCall:
    __slots__ = ("done", "ok", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.ok = False
        self.value: Any = None


class Channel:
    def __init__(
        self,
        connection: Connection,
        handlers: Mapping[str, Handler],
        *,
        name: str,
        on_closed: Callable[[], None] | None = None,
    ) -> None:
        self._connection = connection
        self._handlers = dict(handlers)
        self._name = name
        self._on_closed = on_closed
        self._send_lock = threading.Lock()
        self._pending: dict[int, _PendingCall] = {}
        self._pending_lock = threading.Lock()
        self._ids = itertools.count(1)
        self.closed = threading.Event()
        self._reader: threading.Thread | None = None
        self._calls: ThreadPoolExecutor | None = None

    def start(self, context: Callable[[], object] | None = None) -> None:
        """Start the reader thread; `context()` runs on it first (e.g. to set the task's log context)."""
        self._reader = threading.Thread(target=self._read, args=(context,), name=f"{self._name}-channel", daemon=True)
        self._reader.start()

    def note(self, op: str, *args: Any) -> None:
        """Send a one-way message; ChannelClosedError if the other end is gone."""
        self._send(("note", op, args))

    def call(self, op: str, *args: Any, timeout: float | None = None) -> Any:
        """Ask the other end to run `op` and return its result; ConnectError with its reason if it raised."""
        call_id = next(self._ids)
        pending = _PendingCall()
        with self._pending_lock:
            if self.closed.is_set():
                raise ChannelClosedError(f"{self._name}: the other end is gone")
            self._pending[call_id] = pending
        try:
            self._send(("call", call_id, op, args))
            if not pending.done.wait(timeout):
                raise ConnectError(f"{self._name}: no answer to {op} within {timeout} s")
        finally:
            with self._pending_lock:
                self._pending.pop(call_id, None)
        if not pending.ok:
            raise ConnectError(f"{self._name}: {op} failed: {pending.value}")
        return pending.value

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._connection.close()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            with self._send_lock:
                self._connection.send(message)
        except (OSError, ValueError) as exc:  # ValueError: sent after close()
            raise ChannelClosedError(f"{self._name}: the other end is gone") from exc

    def _read(self, context: Callable[[], object] | None) -> None:
        if context is not None:
            context()
        try:
            while True:
                try:
                    message = self._connection.recv()
                except (EOFError, OSError):
                    return
                self._dispatch(message)
        finally:
            self._closed()

    def _dispatch(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "reply":
            _, call_id, ok, value = message
            with self._pending_lock:
                pending = self._pending.get(call_id)
            if pending is not None:
                pending.ok, pending.value = ok, value
                pending.done.set()
        elif kind == "note":
            _, op, args = message
            try:
                self._handler(op)(*args)
            except Exception:
                log.exception("%s: handling %s failed", self._name, op)
        elif kind == "call":
            if self._calls is None:
                self._calls = ThreadPoolExecutor(_CALL_THREADS, thread_name_prefix=f"{self._name}-calls")
            self._calls.submit(self._serve, *message[1:])

    def _serve(self, call_id: int, op: str, args: tuple[Any, ...]) -> None:
        try:
            reply = ("reply", call_id, True, self._handler(op)(*args))
        except Exception as exc:
            reply = ("reply", call_id, False, f"{type(exc).__name__}: {exc}")
        with contextlib.suppress(ChannelClosedError):
            self._send(reply)

    def _handler(self, op: str) -> Handler:
        handler = self._handlers.get(op)
        if handler is None:
            raise ConnectError(f"{self._name}: nothing handles {op}")
        return handler

    def _closed(self) -> None:
        if self._calls is not None:
            self._calls.shutdown(wait=False)
        with self._pending_lock:
            self.closed.set()
            waiting = list(self._pending.values())
        for pending in waiting:
            pending.ok, pending.value = False, "the other end is gone"
            pending.done.set()
        if self._on_closed is not None:
            self._on_closed()
