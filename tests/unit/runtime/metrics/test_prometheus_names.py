"""Kafka Connect's metric groups get the names Strimzi's JMX exporter rules give them."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from connect.runtime.metrics.groups import MetricGroup, merged
from connect.runtime.metrics.prometheus import render

TASK = (("connector", "pg-sink"), ("task", "0"))


def _samples(groups: list[MetricGroup]) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = render(groups).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if not s.name.endswith("_created")
    }


def test_the_renderings_strimzi_documents() -> None:
    samples = _samples(
        [
            MetricGroup("connect-worker-metrics", (), {"connector-count": 2}),
            MetricGroup("connect-worker-metrics", (("connector", "pg-sink"),), {"connector-running-task-count": 3}),
            MetricGroup("connector-task-metrics", TASK, {"status": "running"}),
            MetricGroup("sink-task-metrics", TASK, {"sink-record-read-total": 7}),
            MetricGroup("task-error-metrics", TASK, {"total-record-failures": 1}),
            MetricGroup("connect-worker-rebalance-metrics", (), {"rebalance-avg-time-ms": 5.0, "leader-name": "w1"}),
            MetricGroup("connector-metrics", (("connector", "pg-sink"),), {"status": "paused"}),
            MetricGroup("connect-coordinator-metrics", (), {"assigned-tasks": 4}),
            MetricGroup("producer-metrics", (("client-id", "p1"),), {"outgoing-byte-total": 99}, domain="producer"),
        ]
    )
    assert samples == {
        ("kafka_connect_worker_connector_count", ()): 2,
        ("kafka_connect_worker_connector_running_task_count", (("connector", "pg-sink"),)): 3,
        ("kafka_connect_connector_task_status", (("connector", "pg-sink"), ("status", "running"), ("task", "0"))): 1,
        ("kafka_connect_sink_task_sink_record_read_total", TASK): 7,
        ("kafka_connect_task_error_total_record_failures", TASK): 1,
        ("kafka_connect_worker_rebalance_rebalance_avg_time_ms", ()): 5.0,
        ("kafka_connect_worker_rebalance_leader_name", (("leader_name", "w1"),)): 1,
        ("kafka_connect_connector_status", (("connector", "pg-sink"), ("status", "paused"))): 1,
        ("kafka_connect_coordinator_assigned_tasks", ()): 4,
        ("kafka_producer_outgoing_byte_total", (("clientId", "p1"),)): 99,
    }


def test_totals_are_counters_and_the_rest_gauges() -> None:
    text = render(
        [MetricGroup("source-task-metrics", TASK, {"source-record-poll-total": 3, "poll-batch-avg-time-ms": 1.5})]
    )
    assert "# TYPE kafka_connect_source_task_source_record_poll_total counter" in text.decode()
    assert "# TYPE kafka_connect_source_task_poll_batch_avg_time_ms gauge" in text.decode()
    assert "_created" not in text.decode()


def test_parts_of_one_group_merge_and_the_first_value_wins() -> None:
    groups = merged(
        [
            MetricGroup("connector-task-metrics", TASK, {"status": "running", "running-ratio": 1.0}),
            MetricGroup("connector-task-metrics", TASK, {"batch-size-max": 10, "status": "failed"}),
        ]
    )
    assert len(groups) == 1
    assert groups[0].values == {"status": "running", "running-ratio": 1.0, "batch-size-max": 10}
