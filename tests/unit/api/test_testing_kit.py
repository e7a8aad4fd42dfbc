"""connect.testing, the test doubles shipped for connector authors, behave as the worker's own contexts do (that
each satisfies its connect.api Protocol is checked by mypy in `make lint`, at the end of connect/testing.py)."""

from __future__ import annotations

import pytest

from connect.api import (
    ConfigError,
    ConnectorContext,
    IllegalWorkerStateError,
    SinkRecord,
    SinkTaskContext,
    SourceConnectorContext,
    SourceTaskContext,
    TopicPartition,
)
from connect.testing import (
    FakeConnectorContext,
    FakeErrantRecordReporter,
    FakeSinkTaskContext,
    FakeSourceConnectorContext,
    FakeSourceTaskContext,
    FakeTransactionContext,
)


def test_a_source_task_context_answers_stored_offsets_by_equal_partitions_and_records_what_was_asked() -> None:
    fake = FakeSourceTaskContext({"topic": "t"}, offsets=[({"file": "a", "line": 1}, {"position": 42})])
    context: SourceTaskContext = fake

    assert context.configs() == {"topic": "t"}
    assert context.offset_reader.offset({"line": 1, "file": "a"}) == {"position": 42}  # key order does not matter
    assert context.offset_reader.offsets([{"file": "b"}]) == [({"file": "b"}, None)]
    assert fake.offset_reader.asked == [{"line": 1, "file": "a"}, {"file": "b"}]
    context.report_problem("records lost at the source")
    assert fake.problems == ["records lost at the source"]
    assert context.transaction_context is None
    transactions = FakeTransactionContext()
    with_transactions: SourceTaskContext = FakeSourceTaskContext(transaction_context=transactions)
    assert with_transactions.transaction_context is transactions


def test_plugin_metrics_check_names_as_the_worker_does_and_their_values_are_readable() -> None:
    fake = FakeSourceTaskContext()
    metrics = fake.plugin_metrics

    with pytest.raises(ConfigError, match="ends in -total"):
        metrics.counter("items", "items polled")
    metrics.counter("items-total", "items polled").add(3)
    metrics.recorder("poll-ms", "poll time").record(5)
    metrics.gauge("backlog", "items waiting", lambda: 7)
    metrics.tagged("my.domain", "Endpoint", {"url": "u"}).cumulative("request", "requests").add(2)

    assert metrics.values() == {"items-total": 3, "poll-ms-avg": 5, "poll-ms-max": 5, "backlog": 7}
    assert metrics.tagged_values("my.domain", "Endpoint", {"url": "u"})["request-count"] == 2


def test_a_sink_task_context_records_rewinds_back_off_pauses_commits_and_errant_records() -> None:
    mine, other = TopicPartition("t", 0), TopicPartition("t", 1)
    reporter = FakeErrantRecordReporter()
    fake = FakeSinkTaskContext({"topics": "t"}, assignment=[mine], errant_record_reporter=reporter)
    context: SinkTaskContext = fake

    context.offset({mine: 10})
    context.timeout(500)
    context.pause(mine)
    context.request_commit()
    with pytest.raises(IllegalWorkerStateError, match="not currently assigned"):
        context.pause(other)
    record = SinkRecord("t", 0, None, None, None, "bad", 9)
    assert context.errant_record_reporter is not None
    context.errant_record_reporter.report(record, ValueError("bad")).result(timeout=0)

    assert (fake.requested_offsets, fake.timeout_ms, fake.paused, fake.commit_requests) == ({mine: 10}, 500, {mine}, 1)
    assert context.assignment() == {mine}
    assert [(r.value, str(e)) for r, e in reporter.reported] == [("bad", "bad")]
    context.resume(mine)
    assert fake.paused == set()


def test_connector_contexts_count_reconfiguration_requests_and_keep_raised_errors() -> None:
    fake = FakeConnectorContext()
    context: ConnectorContext = fake
    context.request_task_reconfiguration()
    context.raise_error(RuntimeError("lost the source"))
    assert fake.reconfiguration_requests == 1 and [str(e) for e in fake.errors] == ["lost the source"]

    source: SourceConnectorContext = FakeSourceConnectorContext(offsets=[({"p": 1}, {"o": 2})])
    assert source.offset_reader.offset({"p": 1}) == {"o": 2}
