"""`WorkerConnector`: one connector instance's lifecycle, run on the connector's own thread.

Every call into the plug-in (`initialize`, `start`, `task_configs`, `stop`) runs on a single thread
per instance (`connector-<name>`), as the plug-in API promises; the Worker's methods submit the call
and wait for it. States and status reports follow Kafka Connect's WorkerConnector: STARTED → RUNNING,
PAUSED and STOPPED stop the plug-in (PAUSED/STOPPED), a failure in any call → FAILED with the trace
(a failed instance stays failed until it is restarted), shutdown → UNASSIGNED.
"""

from __future__ import annotations

import enum
import logging
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import TypeVar

from connect.api.connector import Connector
from connect.api.errors import ConnectError
from connect.runtime.domain.states import TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.logs.context import CURRENT_CONTEXT
from connect.runtime.tasks.contexts import WorkerConnectorContext

log = logging.getLogger(__name__)

T = TypeVar("T")


class ConnectorState(enum.Enum):
    INIT = "INIT"
    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"


class WorkerConnector:
    def __init__(
        self,
        name: str,
        connector: Connector,
        config: Mapping[str, str],
        context: WorkerConnectorContext,
        status: StatusListener,
    ) -> None:
        self.name = name
        self.connector = connector
        self.config = dict(config)
        self.context = context
        self.status = status
        self.state = ConnectorState.INIT
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"connector-{name}")

    def _call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run `fn` on the connector's thread and wait for it (re-raising what it raised)."""

        def in_context() -> T:
            CURRENT_CONTEXT.set(self.name)
            return fn()

        future: Future[T] = self._executor.submit(in_context)
        return future.result(timeout)

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self, target: TargetState) -> None:
        """Initialize the plug-in and move to `target`; failures become status FAILED, never exceptions."""
        self._call(lambda: self._initialize_and_transition(target))

    def _initialize_and_transition(self, target: TargetState) -> None:
        try:
            self.connector.initialize(self.context)
        except Exception as exc:
            self._failed(exc, "initialize")
            return
        self._do_transition(target)

    def transition_to(self, target: TargetState) -> None:
        self._call(lambda: self._do_transition(target))

    def _do_transition(self, target: TargetState) -> None:
        previous = self.state
        if previous is ConnectorState.FAILED:
            log.warning("Connector %s has failed: not moving it to %s (restart it instead)", self.name, target.value)
            return
        if target is TargetState.STARTED:
            if previous is ConnectorState.STARTED:
                return
            try:
                self.connector.start(self.config)
            except Exception as exc:
                self._failed(exc, "start")
                return
            with self._lock:
                if self.state is ConnectorState.FAILED:
                    return  # it called context.raise_error while starting
                self.state = ConnectorState.STARTED
            if previous is ConnectorState.INIT:
                self.status.on_connector_startup(self.name)
            else:
                self.status.on_connector_resume(self.name)
            log.info("Connector %s started", self.name)
            return
        if previous is ConnectorState.STARTED and not self._stop_plugin():
            return
        if target is TargetState.PAUSED:
            self.state = ConnectorState.PAUSED
            self.status.on_connector_pause(self.name)
        else:
            self.state = ConnectorState.STOPPED
            self.status.on_connector_stopped(self.name)

    def _stop_plugin(self) -> bool:
        try:
            self.connector.stop()
        except Exception as exc:
            self._failed(exc, "stop")
            return False
        return True

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        def call() -> list[dict[str, str]]:
            if self.state is not ConnectorState.STARTED:
                raise ConnectError(f"Connector {self.name} is not running (state {self.state.value})")
            return [dict(c) for c in self.connector.task_configs(max_tasks)]

        return self._call(call)

    def shutdown(self, timeout: float) -> bool:
        """Stop the plug-in if it runs and report UNASSIGNED; False if that took longer than `timeout`."""

        def call() -> None:
            if self.state is ConnectorState.STARTED:
                try:
                    self.connector.stop()
                except Exception:
                    log.exception("Connector %s: stop() failed during shutdown", self.name)
            self.state = ConnectorState.STOPPED
            self.status.on_connector_shutdown(self.name)

        try:
            self._call(call, timeout)
            return True
        except FutureTimeoutError:
            log.error("Connector %s did not stop within %.1f s; abandoning its thread", self.name, timeout)
            return False
        finally:
            self._executor.shutdown(wait=False)

    def fail(self, error: BaseException) -> None:
        """The connector reported an error of its own (`context.raise_error`), from any thread."""
        trace = "".join(traceback.format_exception(error))
        with self._lock:
            self.state = ConnectorState.FAILED
        log.error("Connector %s raised an error: %s", self.name, error)
        self.status.on_connector_failure(self.name, trace)

    def _failed(self, error: BaseException, stage: str) -> None:
        trace = traceback.format_exc()
        with self._lock:
            self.state = ConnectorState.FAILED
        log.error("Connector %s failed in %s(): %s", self.name, stage, error)
        self.status.on_connector_failure(self.name, trace)

    @property
    def is_running(self) -> bool:
        return self.state is ConnectorState.STARTED
