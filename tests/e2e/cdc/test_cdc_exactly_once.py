"""The PostgreSQL CDC source in a cluster of two workers with exactly-once source support (KIP-618): the
worker running it is killed with SIGKILL twice while a writer commits small transactions, and a
read_committed reader finds every change exactly once, in commit order, as the database made them."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.cdc_connectors import postgres_connector, slot_name
from tests.support.distributed_workers import Cluster, WorkerProcess
from tests.support.replication_slots import drop_slot
from tests.support.topic_reads import high_watermark, read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

ROWS_PER_TRANSACTION = 5
KILLS = 2


def cdc_config(database: SqlDatabase, prefix: str) -> dict[str, str]:
    extra = {"slot.retry.delay.ms": "200", "max.batch.size": "100", "exactly.once.support": "required"}
    return postgres_connector(database, prefix, "events", **extra)


def write_transactions(database: SqlDatabase, stop: threading.Event, written: list[int]) -> None:
    """Small transactions, a hundred or so a second until `stop`, each inserting rows and updating the first
    of them; `written` counts the committed ones."""
    while not stop.is_set():
        first = written[0] * ROWS_PER_TRANSACTION
        rows = ", ".join(f"({first + offset}, 0)" for offset in range(ROWS_PER_TRANSACTION))
        database.execute(f"INSERT INTO events VALUES {rows}", f"UPDATE events SET version = 1 WHERE id = {first}")
        written[0] += 1
        time.sleep(0.005)


def owner(cluster: Cluster) -> WorkerProcess | None:
    owners = cluster.task_owners(["cdc"], via=cluster.alive()[0])
    worker_id = (owners or {}).get("cdc-0")
    return next((w for w in cluster.workers if w.worker_id == worker_id), None)


def changes(values: list[bytes]) -> list[tuple[Any, ...]]:
    events = [orjson.loads(value) for value in values if value]
    return [(e["op"], e["after"]["id"], e["after"]["version"], e["source"]["lsn"]) for e in events]


def shortfall(bootstrap: str, topic: str, transactions: int) -> str:
    """What a read_committed reader lacks or has twice, next to what was written at all."""
    committed = changes(read_topic(bootstrap, topic, 1, "read_committed"))
    written = changes(read_topic(bootstrap, topic, 1, "read_uncommitted"))
    inserted = Counter(change[1] for change in committed if change[0] == "c")
    missing = sorted(set(range(transactions * ROWS_PER_TRANSACTION)) - set(inserted))
    repeated = sorted(row for row, count in inserted.items() if count > 1)
    return (
        f"{len(committed)} changes committed, {len(written)} written, of {transactions * (ROWS_PER_TRANSACTION + 1)}; "
        f"inserts missing: {missing[:20]} ({len(missing)}), repeated: {repeated[:20]} ({len(repeated)}), "
        f"high watermark {high_watermark(bootstrap, topic)}"
    )


@pytest.mark.slow
def test_every_change_once_for_a_read_committed_reader_through_two_kills(
    clusters: Callable[..., Cluster], postgres_database: SqlDatabase
) -> None:
    database = postgres_database
    database.execute("CREATE TABLE events (id int PRIMARY KEY, version int NOT NULL)")
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.events"
    cluster = clusters(2, exactly_once_source_support="enabled")
    try:
        cluster.create("cdc", cdc_config(database, prefix))
        wait_until(lambda: owner(cluster) is not None, 60, "the CDC task to run")
        stop, written = threading.Event(), [0]
        writer = threading.Thread(target=write_transactions, args=(database, stop, written), daemon=True)
        writer.start()
        try:
            for kill in range(KILLS):
                seen = high_watermark(cluster.bootstrap, topic)
                wait_until(lambda seen=seen: high_watermark(cluster.bootstrap, topic) > seen + 500, 60, "changes")
                victim = owner(cluster)
                assert victim is not None
                victim.signal(signal.SIGKILL)
                victim.wait_exit(10)
                wait_until(lambda victim=victim: owner(cluster) not in (None, victim), 30, f"failover {kill + 1}")
                cluster.start(victim)
            seen = high_watermark(cluster.bootstrap, topic)
            wait_until(lambda: high_watermark(cluster.bootstrap, topic) > seen + 500, 60, "changes after the kills")
        finally:
            stop.set()
            writer.join(30)
        expected = written[0] * (ROWS_PER_TRANSACTION + 1)

        def committed() -> list[tuple[Any, ...]]:
            return changes(read_topic(cluster.bootstrap, topic, 1, "read_committed"))

        try:
            found = wait_until(lambda: (c := committed()) and len(c) >= expected and c, 120, "", interval=1.0)
        except AssertionError:
            raise AssertionError(shortfall(cluster.bootstrap, topic, written[0]) + "\n" + cluster.logs()) from None
    finally:
        cluster.stop()
        drop_slot(database, slot_name(database))
    assert len(found) == expected, "repeated changes"
    assert [lsn for *_, lsn in found] == sorted(lsn for *_, lsn in found)  # commit order: LSNs only grow
    inserted = {change[1] for change in found if change[0] == "c"}
    assert inserted == set(range(written[0] * ROWS_PER_TRANSACTION))
    updated = [change[1] for change in found if change[0] == "u"]
    assert updated == [number * ROWS_PER_TRANSACTION for number in range(written[0])]
