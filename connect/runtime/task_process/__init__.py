"""Tasks in child processes of the worker (`task.isolation=process`).

The worker keeps REST, coordination and the stores; each task runs in its own process with its own Kafka
clients (`child`), so tasks use several cores and a task that crashes its interpreter fails alone. The
worker's side of each is a `ProcessWorkerTask` (`parent`); they talk over a `Channel` (`channel`).
"""

from connect.runtime.task_process.parent import ProcessWorkerTask
from connect.runtime.task_process.start import TaskProcessStart, current_log_levels

__all__ = ["ProcessWorkerTask", "TaskProcessStart", "current_log_levels"]
