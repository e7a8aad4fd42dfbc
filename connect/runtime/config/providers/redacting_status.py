"""`RedactingStatusListener`: the Worker's status listener, hiding resolved secrets in failure traces.

A connector that fails with a secret in its exception message (a bad password echoed back by a
database driver) would otherwise publish it in `/connectors/{c}/status` and the status topic.
"""

from __future__ import annotations

from connect.runtime.config.providers.redaction import SecretRedactor
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.domain.status import StatusListener


class RedactingStatusListener:
    def __init__(self, delegate: StatusListener, redactor: SecretRedactor) -> None:
        self.delegate = delegate
        self._redactor = redactor

    def on_connector_startup(self, connector: str) -> None:
        self.delegate.on_connector_startup(connector)

    def on_connector_pause(self, connector: str) -> None:
        self.delegate.on_connector_pause(connector)

    def on_connector_resume(self, connector: str) -> None:
        self.delegate.on_connector_resume(connector)

    def on_connector_failure(self, connector: str, trace: str) -> None:
        self.delegate.on_connector_failure(connector, self._redactor.redact(trace))

    def on_connector_shutdown(self, connector: str) -> None:
        self.delegate.on_connector_shutdown(connector)

    def on_connector_stopped(self, connector: str) -> None:
        self.delegate.on_connector_stopped(connector)

    def on_connector_restart(self, connector: str) -> None:
        self.delegate.on_connector_restart(connector)

    def on_connector_deletion(self, connector: str) -> None:
        self.delegate.on_connector_deletion(connector)

    def on_task_startup(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_startup(task)

    def on_task_pause(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_pause(task)

    def on_task_resume(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_resume(task)

    def on_task_failure(self, task: ConnectorTaskId, trace: str) -> None:
        self.delegate.on_task_failure(task, self._redactor.redact(trace))

    def on_task_problem(self, task: ConnectorTaskId, trace: str) -> None:
        self.delegate.on_task_problem(task, self._redactor.redact(trace))

    def on_task_shutdown(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_shutdown(task)

    def on_task_restart(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_restart(task)

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        self.delegate.on_task_deletion(task)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self.delegate.on_topic_used(task, topic)
