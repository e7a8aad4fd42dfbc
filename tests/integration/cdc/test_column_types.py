"""Column values of a real PostgreSQL 15 server, streamed and read by a snapshot, as Debezium's PostgreSQL
connector writes them: the same text from both paths, and the Connect value and schema of each type."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from connect.api.data import Struct
from connectors.cdc.postgres.pgoutput import Insert, Relation
from connectors.cdc.postgres.replication import ReplicationStream
from connectors.cdc.postgres.snapshot import SnapshotReader
from connectors.cdc.postgres.types import Modes, TimePrecisionMode, column_type
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.pg_column_samples import COLUMNS, EXPECTED
from tests.support.replication_slots import drop_slot

pytestmark = pytest.mark.integration


@pytest.fixture
def database(postgres_database: SqlDatabase) -> Iterator[SqlDatabase]:
    columns = ", ".join(f"{name} {kind}" for name, (kind, _) in COLUMNS.items())
    postgres_database.execute(
        f"CREATE TABLE typed (pk int PRIMARY KEY, {columns})", "CREATE PUBLICATION kc_pub FOR TABLE typed"
    )
    yield postgres_database
    drop_slot(postgres_database, f"kc_{postgres_database.name}")


def decode_row(relation: Relation, row: tuple[object, ...]) -> dict[str, object]:
    values = {}
    for column, text in zip(relation.columns[1:], row[1:], strict=True):
        kind = column_type(column.type_oid, column.type_modifier)
        assert kind is not None, column.name
        assert isinstance(text, str)
        values[column.name] = kind.decode(text)
    return values


def test_each_type_has_debezium_s_value_and_a_snapshot_reads_the_same_text_as_the_stream(
    database: SqlDatabase,
) -> None:
    params = database.connection_params()
    stream = ReplicationStream(params, f"kc_{database.name}", ["kc_pub"])
    try:
        created = stream.create_slot()
        literals = ", ".join(literal for _, literal in COLUMNS.values())
        database.execute(f"INSERT INTO typed VALUES (1, {literals})")
        stream.start(created.consistent_point)
        messages = []
        deadline = time.monotonic() + 30
        while not any(isinstance(m.message, Insert) for m in messages):
            assert time.monotonic() < deadline, "the insert was not streamed"
            messages += stream.read(1.0)
    finally:
        stream.close()
    (relation,) = [m.message for m in messages if isinstance(m.message, Relation)]
    (insert,) = [m.message for m in messages if isinstance(m.message, Insert)]

    reader = SnapshotReader(params, None)
    try:
        (snapshot_row,) = list(reader.rows("public", "typed", [c.name for c in relation.columns]))
    finally:
        reader.close()
    assert tuple(snapshot_row) == insert.new  # the same text: one decoder serves both
    values = decode_row(relation, insert.new)
    anyscale = values.pop("anyscale")
    assert isinstance(anyscale, Struct) and (anyscale.get("scale"), anyscale.get("value")) == (1, b"\x7d")
    assert values == EXPECTED


def test_the_temporal_schemas_follow_the_time_precision_mode() -> None:
    time_oid, timestamp_oid = 1083, 1114
    names = {
        mode: tuple(
            column_type(oid, typmod, Modes(time_precision=mode)).schema.name
            for oid, typmod in ((time_oid, 3), (time_oid, -1), (timestamp_oid, 3), (timestamp_oid, -1))
        )
        for mode in TimePrecisionMode
    }
    assert names == {
        TimePrecisionMode.ADAPTIVE: (
            "io.debezium.time.Time",
            "io.debezium.time.MicroTime",
            "io.debezium.time.Timestamp",
            "io.debezium.time.MicroTimestamp",
        ),
        TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS: (
            "io.debezium.time.MicroTime",
            "io.debezium.time.MicroTime",
            "io.debezium.time.Timestamp",
            "io.debezium.time.MicroTimestamp",
        ),
        TimePrecisionMode.CONNECT: (
            "org.apache.kafka.connect.data.Time",
            "org.apache.kafka.connect.data.Time",
            "org.apache.kafka.connect.data.Timestamp",
            "org.apache.kafka.connect.data.Timestamp",
        ),
        TimePrecisionMode.MICROSECONDS: (
            "io.debezium.time.MicroTime",
            "io.debezium.time.MicroTime",
            "io.debezium.time.MicroTimestamp",
            "io.debezium.time.MicroTimestamp",
        ),
        TimePrecisionMode.NANOSECONDS: (
            "io.debezium.time.NanoTime",
            "io.debezium.time.NanoTime",
            "io.debezium.time.NanoTimestamp",
            "io.debezium.time.NanoTimestamp",
        ),
    }
