"""The parts the coordinator drives, as Protocols: the real ones are the runtime's `ConfigLog`,
`KafkaStatusStore` and `Worker` and this package's `SlotLog`; unit tests pass fakes."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.stores import ClusterConfigState, ConfigChange, StoredStatuses
from workers.distributed.placement import Unit
from workers.distributed.slot_log import Claim, Placement


class ConfigLogPort(Protocol):
    def add_listener(self, listener: Callable[[ConfigChange], None]) -> None: ...

    def snapshot(self) -> ClusterConfigState: ...

    def read_to_end(self, timeout: float) -> None: ...

    def put_extension(self, key: str, value: Mapping[str, Any] | None, *, timeout: float = ...) -> int: ...

    def put_task_configs(
        self, name: str, configs: Sequence[Mapping[str, str]], epoch: int, *, timeout: float = ...
    ) -> int: ...

    def put_task_count_record(self, name: str, count: int, *, timeout: float = ...) -> int: ...


class SlotLogPort(Protocol):
    def add_listener(self, listener: Callable[[], None]) -> None: ...

    @property
    def slot_count(self) -> int: ...

    def read_to_end(self, timeout: float) -> None: ...

    def claims(self) -> dict[int, Claim]: ...

    def owners(self) -> dict[int, str]: ...

    def claims_changed_at(self) -> float: ...

    def applied(self) -> dict[str, int]: ...

    def placement(self) -> Placement: ...

    def claim(
        self, slots: Iterable[int], worker: str, url: str, timeout: float, *, liveness: str = ""
    ) -> dict[int, int]: ...

    def publish_placement(
        self, epoch: int, slots: Mapping[Unit, int], timeout: float, *, config_offset: int = ...
    ) -> int: ...

    def report_applied(self, worker: str, placement_offset: int, timeout: float) -> None: ...


class StatusPort(Protocol):
    """The status store as the coordinator reads and sweeps it (its writes go through the Worker's listener)."""

    def connector_status(self, connector: str) -> InstanceStatus | None: ...

    def task_status(self, task: ConnectorTaskId) -> InstanceStatus | None: ...

    def stored(self) -> StoredStatuses: ...

    def tombstone(
        self,
        *,
        connectors: Collection[str] = ...,
        tasks: Collection[ConnectorTaskId] = ...,
        topics: Collection[tuple[str, str]] = ...,
        timeout: float,
    ) -> None: ...


class WorkerPort(Protocol):
    @property
    def status(self) -> StatusListener: ...

    def start_connector(
        self, name: str, config: Mapping[str, str], target_state: TargetState, on_reconfigure: Callable[[str], None]
    ) -> None: ...

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target_state: TargetState,
        *,
        ownership_check: Callable[[], None] | None = ...,
    ) -> None: ...

    def stop_tasks(self, task_ids: Iterable[ConnectorTaskId], await_stop: bool = True) -> None: ...

    def stop_connector(self, name: str) -> None: ...

    def set_target_state(self, name: str, state: TargetState) -> None: ...

    def is_running(self, name_or_task: str | ConnectorTaskId) -> bool: ...

    def connector_task_configs(self, name: str, max_tasks: int) -> list[dict[str, str]]: ...
