"""KIP-745 restart plans: which instances `POST /connectors/{c}/restart?includeTasks&onlyFailed` restarts.

Kafka's `AbstractHerder.buildRestartPlan`: the connector restarts unless `onlyFailed` and it is not
FAILED; a task restarts only with `includeTasks`, and with `onlyFailed` only if FAILED. The answer shows
the current statuses with the chosen instances as RESTARTING. Pure: the herder applies the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from connect.runtime.info import ConnectorStateInfo, ConnectorType, InstanceStatus, RestartRequest, TaskStateInfo
from connect.runtime.states import ConnectorTaskId, State
from connect.runtime.status import ConnectorStatusSnapshot


@dataclass(frozen=True)
class RestartPlan:
    restart_connector: bool
    tasks: list[ConnectorTaskId]
    answer: ConnectorStateInfo


def restart_plan(
    request: RestartRequest, snapshot: ConnectorStatusSnapshot, connector_type: ConnectorType, worker_id: str
) -> RestartPlan:
    """The plan for `request` given the connector's current statuses (its connector status must exist)."""
    assert snapshot.connector is not None

    def chosen(status: InstanceStatus) -> bool:
        return not request.only_failed or status.state is State.FAILED

    name = request.connector
    restart_connector = chosen(snapshot.connector)
    tasks = [
        ConnectorTaskId(name, number)
        for number, status in sorted(snapshot.tasks.items())
        if request.include_tasks and chosen(status)
    ]
    restarting = InstanceStatus(State.RESTARTING, worker_id)
    task_states = [
        TaskStateInfo(number, restarting if ConnectorTaskId(name, number) in tasks else status)
        for number, status in sorted(snapshot.tasks.items())
    ]
    connector_status = restarting if restart_connector else snapshot.connector
    return RestartPlan(
        restart_connector, tasks, ConnectorStateInfo(name, connector_status, task_states, connector_type)
    )
