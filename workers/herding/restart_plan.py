"""KIP-745 restart plans: which instances `POST /connectors/{c}/restart?includeTasks&onlyFailed` restarts.

Kafka's `AbstractHerder.buildRestartPlan`: the connector restarts unless `onlyFailed` and it is not
FAILED; a task restarts only with `includeTasks`, and with `onlyFailed` only if FAILED. The answer shows
the current statuses with the chosen instances as RESTARTING, each on the worker its status names. Pure:
the herder applies the plan (standalone) or writes the request for the owners to apply (distributed).
"""

from __future__ import annotations

from dataclasses import dataclass

from connect.api.errors import NotFoundError
from connect.runtime.domain.info import ConnectorStateInfo, ConnectorType, InstanceStatus, RestartRequest, TaskStateInfo
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.domain.status import ConnectorStatusSnapshot


@dataclass(frozen=True)
class RestartPlan:
    restart_connector: bool
    tasks: list[ConnectorTaskId]
    answer: ConnectorStateInfo


def restart_plan(
    request: RestartRequest,
    statuses: ConnectorStatusSnapshot,
    connector_type: ConnectorType,
    *,
    task_count: int | None = None,
) -> RestartPlan:
    """The plan for `request` given the connector's current statuses; NotFoundError if it has none yet.

    `task_count`, when given, leaves out the statuses of tasks numbered beyond it (a status topic keeps
    those of tasks that no longer exist until they are tombstoned).
    """
    name = request.connector
    connector = statuses.connector
    if connector is None:
        raise NotFoundError(f"Status for connector {name} not found")

    def chosen(status: InstanceStatus) -> bool:
        return not request.only_failed or status.state is State.FAILED

    def restarting(status: InstanceStatus) -> InstanceStatus:
        return InstanceStatus(State.RESTARTING, status.worker_id)

    current = [(n, s) for n, s in sorted(statuses.tasks.items()) if task_count is None or n < task_count]
    tasks = [ConnectorTaskId(name, n) for n, status in current if request.include_tasks and chosen(status)]
    chosen_numbers = {task.task for task in tasks}
    task_states = [TaskStateInfo(n, restarting(s) if n in chosen_numbers else s) for n, s in current]
    restart_connector = chosen(connector)
    connector_status = restarting(connector) if restart_connector else connector
    return RestartPlan(
        restart_connector, tasks, ConnectorStateInfo(name, connector_status, task_states, connector_type)
    )
