"""Tasks in child processes of the worker (`task.isolation=process`).

The worker keeps REST, coordination and the stores; tasks run in task processes with their own Kafka
clients (`child`, one `child_task.HostedTask` per task), at most `task.processes.max` of them, so tasks
use several cores and a task that crashes its interpreter takes only its process's tasks with it. The
worker's side of each task is a `ProcessWorkerTask` (`parent`), of each process a `TaskHost` (`hosts`);
they talk over a `Channel` (`channel`).
"""

from connect.runtime.task_process.hosts import TaskHosts
from connect.runtime.task_process.parent import ProcessWorkerTask
from connect.runtime.task_process.start import TaskProcessStart

__all__ = ["ProcessWorkerTask", "TaskHosts", "TaskProcessStart"]
