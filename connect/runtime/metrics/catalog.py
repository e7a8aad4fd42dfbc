"""Every metric kconnect serves, by Kafka's group and attribute names, with what it means (Kafka's
`ConnectMetricsRegistry` describes the same attributes). `/metrics` takes its HELP lines from here, and
the metric list in docs/monitoring.md is generated from it (`python -m connect.runtime.metrics.catalog_docs`),
so neither drifts from the code; a test checks that a real worker serves nothing this does not list."""

from __future__ import annotations

_TASK = ("connector", "task")

GROUPS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "connect-worker-metrics": (
        (),
        {
            "connector-count": "The number of connectors run in this worker.",
            "task-count": "The number of tasks run in this worker.",
            "connector-startup-attempts-total": (
                "The total number of connector startups that this worker has attempted."
            ),
            "connector-startup-success-total": "The total number of connector starts that succeeded.",
            "connector-startup-failure-total": "The total number of connector starts that failed.",
            "connector-startup-success-percentage": (
                "The share (0 to 1) of this worker's connector starts that succeeded."
            ),
            "connector-startup-failure-percentage": "The share (0 to 1) of this worker's connector starts that failed.",
            "task-startup-attempts-total": "The total number of task startups that this worker has attempted.",
            "task-startup-success-total": "The total number of task starts that succeeded.",
            "task-startup-failure-total": "The total number of task starts that failed.",
            "task-startup-success-percentage": "The share (0 to 1) of this worker's task starts that succeeded.",
            "task-startup-failure-percentage": "The share (0 to 1) of this worker's task starts that failed.",
        },
    ),
    "connect-worker-metrics,connector": (
        ("connector",),
        {
            "connector-total-task-count": "The number of tasks of the connector on this worker.",
            "connector-running-task-count": "The number of running tasks of the connector on this worker.",
            "connector-paused-task-count": "The number of paused tasks of the connector on this worker.",
            "connector-failed-task-count": "The number of failed tasks of the connector on this worker.",
            "connector-unassigned-task-count": "The number of unassigned tasks of the connector on this worker.",
            "connector-destroyed-task-count": "The number of destroyed tasks of the connector on this worker.",
            "connector-restarting-task-count": "The number of restarting tasks of the connector on this worker.",
        },
    ),
    "connect-worker-rebalance-metrics": (
        (),
        {
            "connect-protocol": "The protocol the workers of the cluster coordinate with (kconnect: slots).",
            "leader-name": "The worker that balances the cluster now (the owner of slot 0).",
            "epoch": "This worker's generation: the offset of its latest registration in the config log.",
            "completed-rebalances-total": "The total number of rebalances completed by this worker.",
            "rebalancing": "Whether this worker is rebalancing (1) or not (0).",
            "rebalance-max-time-ms": "The maximum time in milliseconds spent by this worker to rebalance.",
            "rebalance-avg-time-ms": "The average time in milliseconds spent by this worker to rebalance.",
            "time-since-last-rebalance-ms": (
                "The time in milliseconds since this worker completed the most recent rebalance."
            ),
            "assigned-slots": "kconnect: how many of the cluster's slots this worker owns (work is placed in slots).",
        },
    ),
    "connect-coordinator-metrics": (
        (),
        {
            "assigned-connectors": "The number of connector instances assigned to this worker.",
            "assigned-tasks": "The number of tasks assigned to this worker.",
        },
    ),
    "connector-metrics": (
        ("connector",),
        {
            "status": "The status of the connector instance run by this worker.",
            "connector-type": "The type of the connector: source or sink.",
            "connector-class": "The connector's class, as its config names it.",
            "connector-version": "The version of the connector's class, as the connector reports it.",
        },
    ),
    "connector-task-metrics": (
        _TASK,
        {
            "status": "The status of the connector task.",
            "running-ratio": "The fraction of time this task has spent in the running state since it started here.",
            "pause-ratio": "The fraction of time this task has spent in the pause state since it started here.",
            "offset-commit-max-time-ms": "The maximum time in milliseconds taken by this task to commit offsets.",
            "offset-commit-avg-time-ms": "The average time in milliseconds taken by this task to commit offsets.",
            "offset-commit-success-percentage": (
                "The share (0 to 1) of this task's offset commit attempts that succeeded."
            ),
            "offset-commit-failure-percentage": "The share (0 to 1) of this task's offset commit attempts that failed.",
            "batch-size-max": "The number of records in the largest batch the task has processed so far.",
            "batch-size-avg": "The average number of records in the batches the task has processed so far.",
        },
    ),
    "source-task-metrics": (
        _TASK,
        {
            "source-record-poll-total": "The records produced/polled (before transformation) by this task.",
            "source-record-poll-rate": (
                "The average per-second number of records produced/polled (before transformation)."
            ),
            "source-record-write-total": (
                "The records output from the transformations and written to Kafka for this task."
            ),
            "source-record-write-rate": "The average per-second number of records written to Kafka for this task.",
            "poll-batch-max-time-ms": (
                "The maximum time in milliseconds taken by this task to poll for a batch of source records."
            ),
            "poll-batch-avg-time-ms": (
                "The average time in milliseconds taken by this task to poll for a batch of source records."
            ),
            "source-record-active-count": (
                "The number of records sent by this task but not yet known to be written to Kafka."
            ),
            "source-record-active-count-max": (
                "The maximum number of records sent but not yet known to be written to Kafka."
            ),
            "source-record-active-count-avg": (
                "The average number of records sent but not yet known to be written to Kafka."
            ),
            "transaction-size-min": "The number of records in the smallest transaction the task has committed so far.",
            "transaction-size-max": "The number of records in the largest transaction the task has committed so far.",
            "transaction-size-avg": "The average number of records in the transactions the task has committed so far.",
        },
    ),
    "sink-task-metrics": (
        _TASK,
        {
            "sink-record-read-total": "The records read from Kafka by this task (before transformation).",
            "sink-record-read-rate": "The average per-second number of records read from Kafka by this task.",
            "sink-record-send-total": "The records output from the transformations and sent/put to this task.",
            "sink-record-send-rate": "The average per-second number of records sent/put to this task.",
            "sink-record-lag-max": (
                "The most records any partition of this task has in Kafka beyond the consumer's position."
            ),
            "partition-count": "The number of topic partitions assigned to this task.",
            "offset-commit-seq-no": "The current sequence number for offset commits.",
            "offset-commit-completion-total": "The offset commits that completed successfully.",
            "offset-commit-completion-rate": (
                "The average per-second number of offset commits that completed successfully."
            ),
            "offset-commit-skip-total": (
                "The offset commits that completed too late and were skipped (none: commits are synchronous)."
            ),
            "offset-commit-skip-rate": "The average per-second number of offset commits skipped.",
            "put-batch-max-time-ms": (
                "The maximum time in milliseconds taken by this task to put a batch of sink records."
            ),
            "put-batch-avg-time-ms": (
                "The average time in milliseconds taken by this task to put a batch of sink records."
            ),
            "sink-record-active-count": "The number of records put to the task but not yet committed.",
            "sink-record-active-count-max": "The maximum number of records put to the task but not yet committed.",
            "sink-record-active-count-avg": "The average number of records put to the task but not yet committed.",
        },
    ),
    "sink-task-partition-metrics": (
        (*_TASK, "topic", "partition"),
        {"lag": "kconnect: the records of this partition in Kafka beyond the task consumer's position."},
    ),
    "task-error-metrics": (
        _TASK,
        {
            "total-record-failures": "The number of record processing failures in this task.",
            "total-record-errors": "The number of record processing errors in this task.",
            "total-records-skipped": "The number of records skipped due to errors.",
            "total-retries": "The number of operations retried.",
            "total-errors-logged": "The number of errors that were logged.",
            "deadletterqueue-produce-requests": "The number of attempted writes to the dead letter queue.",
            "deadletterqueue-produce-failures": "The number of failed writes to the dead letter queue.",
            "last-error-timestamp": "The epoch timestamp (ms) when this task last encountered an error.",
        },
    ),
}

_CLIENT = {
    "connection-count": "The current number of active connections.",
    "outgoing-byte-total": "The total number of outgoing bytes sent to all servers.",
    "incoming-byte-total": "The total number of bytes read off all sockets.",
    "request-total": "The total number of requests sent.",
    "response-total": "The total number of responses received.",
}
CLIENT_GROUPS: dict[str, dict[str, str]] = {"consumer-metrics": _CLIENT, "producer-metrics": _CLIENT}


def description(group: str, tags: tuple[str, ...], attribute: str) -> str | None:
    """What `attribute` of `group` means; None if kconnect does not define it."""
    if group in CLIENT_GROUPS:
        return CLIENT_GROUPS[group].get(attribute)
    key = f"{group},connector" if group == "connect-worker-metrics" and "connector" in tags else group
    entry = GROUPS.get(key)
    return None if entry is None else entry[1].get(attribute)
