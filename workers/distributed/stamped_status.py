"""`StampedStatusListener`: the `StatusListener` the distributed Worker reports to; it writes each status to
the status topic stamped with this worker's id and the generation it belongs to (`generations.py`).

Kafka's `AbstractHerder` plays this part (it is the Worker's `TaskStatus.Listener` and writes
`new TaskStatus(id, state, workerId, generation())`): the store gets the generation with the status and
never asks the group for it. Deletions and topic records carry no generation and go to the store as they
are. Any thread, like the store.
"""

from __future__ import annotations

from typing import Protocol

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.domain.status import StatusTransitions
from connect.runtime.stores import StatusEntry
from workers.distributed.generations import Generations
from workers.distributed.placement import connector_unit


class StatusWrites(Protocol):
    """What this listener writes to: `KafkaStatusStore`."""

    def put_connector(self, connector: str, entry: StatusEntry, *, safe: bool = False) -> None: ...
    def put_task(self, task: ConnectorTaskId, entry: StatusEntry, *, safe: bool = False) -> None: ...
    def on_connector_deletion(self, connector: str) -> None: ...
    def on_task_deletion(self, task: ConnectorTaskId) -> None: ...
    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None: ...


class StampedStatusListener(StatusTransitions):
    def __init__(self, store: StatusWrites, worker_id: str, generations: Generations) -> None:
        self._store = store
        self._worker_id = worker_id
        self._generations = generations

    def on_connector_deletion(self, connector: str) -> None:
        self._store.on_connector_deletion(connector)

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        self._store.on_task_deletion(task)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self._store.on_topic_used(task, topic)

    def _put_connector(self, connector: str, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        generation = self._generations.of_status(connector_unit(connector))
        self._store.put_connector(connector, self._entry(state, trace, generation), safe=safe)

    def _put_task(self, task: ConnectorTaskId, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        self._store.put_task(task, self._entry(state, trace, self._generations.of_status(task)), safe=safe)

    def _entry(self, state: State, trace: str | None, generation: int) -> StatusEntry:
        return StatusEntry(InstanceStatus(state, self._worker_id, trace), generation)
