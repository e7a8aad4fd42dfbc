"""kconnect's PostgreSQL change-event parts next to Debezium 3.6.1's, for the same row of the same database:
Debezium's PostgresConnector runs in Java Kafka Connect (standalone, JsonConverter with schemas) against the
test PostgreSQL server and Kafka broker; the event it writes for an insert is read back and its `after`
(schema and payload), its `source` schema and its envelope are compared with what kconnect's types,
source block and envelope make of the same row."""

from __future__ import annotations

import base64
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg
import pytest
import sqlalchemy as sa
from confluent_kafka import Consumer

from bench.java_connect import jars as java_jars
from connect.api.data import Field, Schema, SchemaType, Struct
from connect.converters.json import JsonConverter
from connectors.cdc.envelope import TRANSACTION_BLOCK
from connectors.cdc.naming import TopicNaming, value_schema_name
from connectors.cdc.postgres.catalog import table_info
from connectors.cdc.postgres.changes import ChangeTracker, RowChange, TransactionEnd
from connectors.cdc.postgres.events import ChangeRecord, EventContext, TableEvents, context_headers
from connectors.cdc.postgres.logical_messages import MESSAGE_ID_CLASS
from connectors.cdc.postgres.replication import ReplicationStream
from connectors.cdc.postgres.snapshot import SnapshotReader
from connectors.cdc.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.cdc.postgres.types import column_type
from local_kafka.jars import default_version
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support import debezium
from tests.support.cdc_connectors import postgres_connector
from tests.support.java_connect_worker import java_standalone_worker
from tests.support.pg_column_samples import COLUMNS
from tests.support.replication_slots import drop_slot
from tests.support.standalone_workers import all_running, create_connector, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

JSON_WITH_SCHEMAS = {"schemas.enable": "true"}
JSON_CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}
OUR_VERSION = "kconnect"
CONTEXT = "__debezium.context."


@pytest.fixture(scope="module")
def java_connect(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Java standalone worker with Debezium's PostgreSQL connector, writing JSON with schemas."""
    worker = {
        "plugin.path": f"{java_jars.fetch(default_version()).plugins},{debezium.plugin_path()}",
        "plugin.discovery": "hybrid_warn",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }
    with java_standalone_worker(kafka_bootstrap, tmp_path_factory.mktemp("debezium"), worker) as rest:
        yield rest


@pytest.fixture
def database(postgres_database: SqlDatabase) -> Iterator[SqlDatabase]:
    columns = ", ".join(f"{name} {kind}" for name, (kind, _) in COLUMNS.items())
    postgres_database.execute(
        f"CREATE TABLE typed (pk int PRIMARY KEY, {columns})",
        "CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL, note text, big text)",
    )
    yield postgres_database
    drop_slot(postgres_database, slot_name(postgres_database))
    drop_slot(postgres_database, f"kc_{postgres_database.name}")


@contextmanager
def debezium_running(rest: str, database: SqlDatabase, prefix: str, table: str, **extra: str) -> Iterator[None]:
    """Debezium's connector on `table` (or a comma-separated list), streaming only (snapshot.mode=no_data), once
    its slot is active; deleted on exit, so that its slot can be dropped."""
    url = sa.make_url(database.url)
    config = {
        "connector.class": debezium.CONNECTOR_CLASS,
        "database.hostname": str(url.host),
        "database.port": str(url.port),
        "database.user": str(url.username),
        "database.password": "unused",  # the test server trusts loopback
        "database.dbname": str(url.database),
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot_name(database),
        "publication.name": slot_name(database),
        "publication.autocreate.mode": "filtered",
        "table.include.list": ",".join(f"public.{name}" for name in table.split(",")),
        "snapshot.mode": "no_data",
        **extra,
    }
    answer = httpx.post(f"{rest}/connectors", json={"name": prefix, "config": config}, timeout=60)
    assert answer.status_code == 201, answer.text
    active = f"SELECT active FROM pg_replication_slots WHERE slot_name = '{slot_name(database)}'"
    wait_until(lambda: database.rows(active) == [(True,)], 120, "Debezium to stream from its slot")
    try:
        yield
    finally:
        httpx.delete(f"{rest}/connectors/{prefix}", timeout=60)


def slot_name(database: SqlDatabase) -> str:
    return f"dbz_{database.name}"


@dataclass(frozen=True)
class Written:
    """A record as Debezium wrote it: key and value JSON (value None: a tombstone), header names."""

    key: Any
    value: Any
    headers: tuple[tuple[str, bytes | None], ...]


def debezium_records(kafka_bootstrap: str, topic: str, count: int, timeout: float = 120) -> list[Written]:
    consumer = Consumer(
        {"bootstrap.servers": kafka_bootstrap, "group.id": f"t-{uuid.uuid4().hex}", "auto.offset.reset": "earliest"}
    )
    try:
        consumer.subscribe([topic])
        found: list[Written] = []

        def arrived() -> bool:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                value = message.value()
                headers = tuple(message.headers() or [])
                found.append(
                    Written(orjson.loads(message.key() or b"null"), orjson.loads(value) if value else None, headers)
                )
            return len(found) >= count

        wait_until(arrived, timeout, f"{count} records from Debezium on {topic}")
        return found
    finally:
        consumer.close()


def our_after(database: SqlDatabase, topic: str) -> tuple[Schema, Struct]:
    """The `after` row as kconnect's types make it of the row's text, read as a snapshot reads it."""
    columns = database.rows(
        "SELECT attname, atttypid, atttypmod, attnotnull FROM pg_attribute "
        "WHERE attrelid = 'public.typed'::regclass AND attnum > 0 ORDER BY attnum"
    )
    reader = SnapshotReader(database.connection_params(), None)
    try:
        (texts,) = list(reader.rows("public", "typed", [str(name) for name, *_ in columns]))
    finally:
        reader.close()
    fields, values = [], {}
    for index, ((name, type_oid, typmod, not_null), text) in enumerate(zip(columns, texts, strict=True)):
        kind = column_type(int(str(type_oid)), int(str(typmod)))
        assert kind is not None, name
        kind = kind if not_null else kind.optional()
        fields.append(Field(str(name), index, kind.schema))
        values[str(name)] = None if text is None else kind.decode(text)
    schema = Schema(SchemaType.STRUCT, optional=True, name=value_schema_name(topic), fields=tuple(fields))
    return schema, Struct(schema, values)


def test_an_insert_s_row_source_schema_and_envelope_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str
) -> None:
    url = sa.make_url(database.url)
    prefix = f"dbz{uuid.uuid4().hex[:8]}"
    topic = TopicNaming(prefix).data_topic("public", "typed")
    with debezium_running(java_connect, database, prefix, "typed"):
        literals = ", ".join(literal for _, literal in COLUMNS.values())
        database.execute(f"INSERT INTO typed VALUES (1, {literals})")
        (written,) = debezium_records(kafka_bootstrap, topic, 1)
    event = written.value

    theirs = {field["field"]: field for field in event["schema"]["fields"]}
    schema, after = our_after(database, topic)
    converter = JsonConverter()
    converter.configure(JSON_WITH_SCHEMAS, False)
    ours = orjson.loads(converter.from_connect_data(topic, schema, after) or b"null")
    assert {k: v for k, v in theirs["after"].items() if k != "field"} == ours["schema"]
    assert event["payload"]["after"] == ours["payload"]

    assert {k: v for k, v in theirs["source"].items() if k != "field"} == orjson.loads(
        converter.as_json_schema(SOURCE_SCHEMA)
    )
    assert {k: v for k, v in theirs["transaction"].items() if k != "field"} == orjson.loads(
        converter.as_json_schema(TRANSACTION_BLOCK)
    )
    assert list(theirs) == ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]
    assert (event["schema"]["name"], event["schema"]["version"]) == (f"{topic}.Envelope", 2)
    source = event["payload"]["source"]
    assert (source["connector"], source["name"], source["db"], source["schema"], source["table"]) == (
        "postgresql",
        prefix,
        url.database,
        "public",
        "typed",
    )
    assert source["snapshot"] == "false" and event["payload"]["op"] == "c"
    commit_lsn, lsn = orjson.loads(source["sequence"])
    assert int(lsn) == source["lsn"] and (commit_lsn is None or int(commit_lsn) <= source["lsn"])


def our_records(database: SqlDatabase, prefix: str, table: str, operations: list[str]) -> list[ChangeRecord]:
    """kconnect's records for `operations`, streamed from a slot of its own made before them."""
    publication = f"kc_{database.name}"
    database.execute(f"CREATE PUBLICATION {publication} FOR TABLE {table}")
    params = database.connection_params()
    stream = ReplicationStream(params, publication, [publication])
    try:
        created = stream.create_slot()
        for operation in operations:
            database.execute(operation)
        stream.start(created.consistent_point)
        with psycopg.connect(**params) as connection:
            info = table_info(connection, "public", table)
        headers = context_headers(prefix, "0", str(uuid.uuid4()))
        events = TableEvents(info, TopicNaming(prefix).data_topic("public", table), context_headers=headers)
        source = SourceInfo(OUR_VERSION, prefix, database.name)
        tracker, records, ends = ChangeTracker(), [], 0
        deadline = time.monotonic() + 30
        while ends < len(operations):
            assert time.monotonic() < deadline, "kconnect's stream did not bring every transaction"
            for wal in stream.read(1.0):
                change = tracker.feed(wal)
                if isinstance(change, TransactionEnd):
                    ends += 1
                elif isinstance(change, RowChange):
                    at = EventContext(source.struct("public", table, change.position), time.time_ns())
                    if change.operation == "INSERT":
                        records += events.insert(change.new or (), at)
                    elif change.operation == "UPDATE":
                        records += events.update(change.new or (), change.old, at)
                    else:
                        records += events.delete(change.old or (), at)
        return records
    finally:
        stream.close()


def comparable(value: Any) -> Any:
    """An event's JSON without what differs by design: the processing times and the connector's version."""
    if value is None:
        return None
    payload = {k: v for k, v in value["payload"].items() if k not in ("ts_ms", "ts_us", "ts_ns")}
    payload["source"] = {k: v for k, v in payload["source"].items() if k != "version"}
    return {"schema": value["schema"], "payload": payload}


def test_inserts_updates_toast_key_changes_and_deletes_agree_with_debezium_s_records_one_for_one(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str
) -> None:
    prefix = f"dbz{uuid.uuid4().hex[:8]}"
    topic = TopicNaming(prefix).data_topic("public", "people")
    operations = [
        "INSERT INTO people VALUES (1, 'ann', 'first', (SELECT string_agg(md5(random()::text), '') "
        "FROM generate_series(1, 200)))",
        "UPDATE people SET name = 'anne' WHERE id = 1",  # big stays TOASTed: not sent
        "UPDATE people SET id = 2 WHERE id = 1",  # a key change: delete, tombstone, create
        "DELETE FROM people WHERE id = 2",  # default identity: the old row is its key only
    ]
    with debezium_running(java_connect, database, prefix, "people"):
        ours = our_records(database, prefix, "people", operations)
        theirs = debezium_records(kafka_bootstrap, topic, len(ours))

    json = JsonConverter()
    json.configure(JSON_WITH_SCHEMAS, False)
    key_json = JsonConverter()
    key_json.configure(JSON_WITH_SCHEMAS, True)
    assert [r.value is None for r in ours] == [False, False, False, True, False, False, True]
    for index, (mine, written) in enumerate(zip(ours, theirs, strict=True)):
        assert orjson.loads(key_json.from_connect_data(topic, mine.key_schema, mine.key) or b"null") == written.key, (
            index
        )
        value = json.from_connect_data(topic, mine.value_schema, mine.value) if mine.value is not None else None
        assert comparable(orjson.loads(value) if value else None) == comparable(written.value), index
        # the same headers with the same values, but for the run id (each run of a task draws its own)
        theirs_headers = [(n, None if n.endswith("runId") else v) for n, v in written.headers]
        ours_headers = [
            (n, None if n.endswith("runId") else (v.encode() if isinstance(v, str) else v)) for n, _, v in mine.headers
        ]
        assert [n for n, _ in ours_headers] == [n for n, _ in theirs_headers], index
        assert [v for n, v in ours_headers if n.startswith(CONTEXT)] == [
            v for n, v in theirs_headers if n.startswith(CONTEXT)
        ]


def renamed(written: list[Written], ours: str, theirs: str) -> list[tuple[Any, Any]]:
    """Keys and comparable values of records written under prefix `ours`, as if under `theirs`."""
    return [
        orjson.loads(orjson.dumps((r.key, comparable(r.value))).replace(ours.encode(), theirs.encode()))
        for r in written
    ]


@dataclass(frozen=True)
class BothSides:
    """What Debezium's connector and kconnect's wrote for the same statements, by topic suffix."""

    theirs_prefix: str
    our_prefix: str
    theirs: dict[str, list[Written]]
    ours: dict[str, list[Written]]

    def agree(self, suffix: str) -> None:
        """The records under `suffix` are the same on both sides, but for what differs by design."""
        ours = renamed(self.ours[suffix], self.our_prefix, self.theirs_prefix)
        assert ours == renamed(self.theirs[suffix], self.theirs_prefix, self.theirs_prefix), suffix


def run_both(
    java_connect: str,
    kafka_bootstrap: str,
    database: SqlDatabase,
    tmp_path: Path,
    tables: str,
    config: dict[str, str],
    transactions: list[tuple[str, ...]],
    counts: dict[str, int],
) -> BothSides:
    """Debezium's connector and kconnect's, each on its own slot of `database` with the same `config`, both
    streaming before `transactions` run; then `counts[suffix]` records read from each side's
    `<prefix>.<suffix>` topic."""
    theirs_prefix, our_prefix = f"dbz{uuid.uuid4().hex[:8]}", f"kc{uuid.uuid4().hex[:8]}"
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON_CONVERTERS)
    with (
        debezium_running(java_connect, database, theirs_prefix, tables, **config),
        running_worker(props) as (_, client),
    ):
        create_connector(
            client, "cdc", postgres_connector(database, our_prefix, tables, **{"snapshot.mode": "no_data", **config})
        )
        our_slot = f"SELECT 1 FROM pg_replication_slots WHERE slot_name = 'kc_{database.name}'"
        wait_until(lambda: all_running(client, "cdc", 1) and database.rows(our_slot) != [], 60, "kconnect's slot")
        for statements in transactions:
            database.execute(*statements)
        read = {
            prefix: {suffix: debezium_records(kafka_bootstrap, f"{prefix}.{suffix}", n) for suffix, n in counts.items()}
            for prefix in (theirs_prefix, our_prefix)
        }
    return BothSides(theirs_prefix, our_prefix, read[theirs_prefix], read[our_prefix])


def test_transaction_records_and_blocks_agree_with_debezium_s_record_for_record(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """provide.transaction.metadata and TRUNCATE events (skipped.operations=none) on both sides: the same
    transactions give the same BEGIN and END records (ids `<xid>:<lsn>`, commit times, counts, and the END's
    tables in the order of Debezium's HashMap) and the same events, each with the same transaction block."""
    database.execute("CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL)")
    transactions = [
        (  # people first: the END lists orders first, as Java's HashMap orders the two names
            "INSERT INTO people VALUES (1, 'ann', NULL, NULL)",
            "INSERT INTO orders VALUES (10, 'pen')",
            "UPDATE people SET name = 'anne' WHERE id = 1",
            "INSERT INTO orders VALUES (11, 'ink')",
        ),
        ("UPDATE people SET id = 2 WHERE id = 1",),  # a key change: two counted events and a tombstone
        ("DELETE FROM orders WHERE id = 10",),
        ("TRUNCATE orders",),
    ]
    config = {"provide.transaction.metadata": "true", "skipped.operations": "none"}
    counts = {"transaction": 2 * len(transactions), "public.people": 5, "public.orders": 5}  # with the tombstones
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "people,orders", config, transactions, counts)

    ours = both.ours["transaction"]
    assert [(r.key, r.value) for r in ours] == [(r.key, r.value) for r in both.theirs["transaction"]]
    assert [r.value["payload"]["status"] for r in ours] == ["BEGIN", "END"] * len(transactions)
    assert [(c["data_collection"], c["event_count"]) for c in ours[1].value["payload"]["data_collections"]] == [
        ("public.orders", 2),
        ("public.people", 2),
    ]
    for table in ("public.people", "public.orders"):
        both.agree(table)
        assert all(r.value["payload"]["transaction"] for r in both.ours[table] if r.value is not None), table
    truncate = both.ours["public.orders"][-1]
    assert truncate.key is None and truncate.value["payload"]["op"] == "t"


def test_column_filters_and_custom_keys_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """column.exclude.list (a key column among them) and message.key.columns on both sides: the rows leave the
    excluded columns out, the key is the chosen column, and a change of it is a delete, tombstone and create."""
    database.execute("ALTER TABLE people REPLICA IDENTITY FULL")  # deletes then carry the chosen key column
    transactions = [
        ("INSERT INTO people VALUES (1, 'ann', 'first', 'big')",),
        ("UPDATE people SET note = 'second' WHERE id = 1",),
        ("UPDATE people SET name = 'anne' WHERE id = 1",),  # the key changes
        ("DELETE FROM people WHERE id = 1",),
    ]
    config = {"column.exclude.list": "public.people.(id|big)", "message.key.columns": "public.people:name"}
    counts = {"public.people": 7}  # c, u, d + tombstone + c, d + tombstone
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "people", config, transactions, counts)

    both.agree("public.people")
    first = both.ours["public.people"][0]
    assert first.key["payload"] == {"name": "ann"}
    assert set(first.value["payload"]["after"]) == {"name", "note"}


def test_masked_hashed_and_truncated_columns_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """column.mask.with.N.chars (a null masked too), column.mask.hash (v1: the value as Java serializes it;
    v2: its bytes; a varchar(10)'s hash cut to 10), column.truncate.to.N.chars (a char(4) cut to 2, a key
    column left alone in the key): the same values and the same schema parameters on both sides."""
    database.execute("CREATE TABLE cards (id int PRIMARY KEY, holder varchar(10), pan text, tag char(4), memo text)")
    transactions = [
        ("INSERT INTO people VALUES (1, 'ann', 'first', 'big value')",),
        ("INSERT INTO people VALUES (2, 'bob', NULL, NULL)",),
        ("INSERT INTO cards VALUES (7, 'Ann Ämber', '4111 1111 1111 1111', 'gold', 'héllo wörld 😀')",),
        ("UPDATE cards SET memo = NULL, holder = NULL WHERE id = 7",),
    ]
    config = {
        "column.mask.with.5.chars": "public.people.note",
        "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K": "public.people.name,public.cards.pan",
        "column.mask.hash.v2.SHA-256.with.salt.s4lt": "public.cards.holder",
        "column.truncate.to.2.chars": "public.cards.tag,public.people.id",
        "column.truncate.to.4.chars": "public.people.big,public.cards.memo",
    }
    counts = {"public.people": 2, "public.cards": 2}
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "people,cards", config, transactions, counts)

    both.agree("public.people")
    both.agree("public.cards")
    bob = both.ours["public.people"][1].value["payload"]["after"]
    assert bob["note"] == "*****" and bob["big"] is None
    card = both.ours["public.cards"][0].value["payload"]["after"]
    assert len(card["holder"]) == 10 and card["tag"] == "go" and card["pan"] != "4111 1111 1111 1111"


def test_logical_decoding_messages_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """pg_logical_emit_message, transactional (an event of its transaction, counted in its END) and not (on
    its own, with the last commit's time), and one whose prefix message.prefix.exclude.list leaves out: the
    same `op=m` records on `<prefix>.message` and the same transaction records on both sides."""
    transactions = [
        ("INSERT INTO people VALUES (1, 'ann', NULL, NULL)", "SELECT pg_logical_emit_message(true, 'outbox', 'one')"),
        ("SELECT pg_logical_emit_message(false, 'audit', E'\\\\x00ff'::bytea)",),
        ("SELECT pg_logical_emit_message(true, 'skip-me', 'x')", "INSERT INTO people VALUES (2, 'bob', NULL, NULL)"),
    ]
    config = {"provide.transaction.metadata": "true", "message.prefix.exclude.list": "skip.*"}
    counts = {"message": 2, "transaction": 4, "public.people": 2}
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "people", config, transactions, counts)

    both.agree("message")
    both.agree("public.people")
    for mine, theirs in zip(both.ours["transaction"], both.theirs["transaction"], strict=True):
        assert (mine.key, collections_named(mine.value["payload"])) == (theirs.key, collections_named(theirs.value))
    outbox, audit = (r.value["payload"] for r in both.ours["message"])
    assert (outbox["op"], outbox["message"]["prefix"], outbox["transaction"]["total_order"]) == ("m", "outbox", 2)
    assert outbox["message"]["content"] == base64.b64encode(b"one").decode()
    assert (audit["message"]["prefix"], audit["transaction"], audit["source"]["txId"]) == ("audit", None, None)
    end = both.ours["transaction"][1].value["payload"]
    assert collections_named(end)["data_collections"] == [(MESSAGE_ID_CLASS + "@…", 1), ("public.people", 1)]


def collections_named(payload: dict[str, Any]) -> dict[str, Any]:
    """A transaction record with the identity hash Debezium names a message's data collection after (a new
    object's, different in every process) replaced by "…", and the collections sorted (the END's order is
    the HashMap order of those names)."""
    payload = payload.get("payload", payload)
    collections = [
        (re.sub(r"@[0-9a-f]+$", "@…", c["data_collection"]), c["event_count"])
        for c in payload["data_collections"] or []
    ]
    return {**payload, "data_collections": sorted(collections)}


def test_enums_and_arrays_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """An enum (STRING `io.debezium.data.Enum`, its labels in sort order as `allowed`), an array of it, and
    arrays of ints, text (quotes, commas, backslashes, NULL elements and the string "NULL"), numeric(6,2),
    booleans, floats, uuids and jsonb: the same schemas and values on both sides, an empty array and a null
    one included."""
    database.execute(
        "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'",
        "CREATE TABLE arrays (id int PRIMARY KEY, feeling mood, feelings mood[], ints int[], big bigint[], "
        "words text[], prices numeric(6,2)[], flags boolean[], ratios float8[], ids uuid[], docs jsonb[])",
    )
    transactions = [
        (
            "INSERT INTO arrays VALUES (1, 'happy', '{sad,meh}', '{1,NULL,-3}', '{9007199254740993}', "
            """'{plain,"with space","a,b","quo\\"te","back\\\\slash",NULL,"NULL",""}', '{1.50,NULL,-2}', """
            "'{t,f,NULL}', '{1.5,-0.25}', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', "
            """ARRAY['{"a": 1}'::jsonb, NULL])""",
        ),
        ("INSERT INTO arrays VALUES (2, NULL, '{}', NULL, '{}', '{}', NULL, '{}', NULL, '{}', '{}')",),
        ("UPDATE arrays SET ints = '{7}', feeling = 'meh' WHERE id = 1",),
    ]
    counts = {"public.arrays": 3}
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "arrays", {}, transactions, counts)

    both.agree("public.arrays")
    first = both.ours["public.arrays"][0].value
    assert first["payload"]["after"]["words"][:3] == ["plain", "with space", "a,b"]
    assert first["payload"]["after"]["feelings"] == ["sad", "meh"]
    feeling = next(f for f in first["schema"]["fields"][1]["fields"] if f["field"] == "feeling")
    assert feeling["parameters"] == {"allowed": "sad,meh,ok,happy"}


def test_temporal_and_bytea_arrays_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """Arrays of dates, times, timestamps (with and without zone, constrained or not), timetz and bytea: the
    element schemas of the element types, and the values as Debezium's array path leaves them (a time cut to
    the millisecond, a timetz to the second)."""
    database.execute(
        "CREATE TABLE tarr (id int PRIMARY KEY, days date[], times time[], times3 time(3)[], t0 time(0)[], "
        "stamps timestamp[], s3 timestamp(3)[], zoned timestamptz[], z3 timestamptz(3)[], ztimes timetz[], "
        "blobs bytea[])"
    )
    transactions = [
        (
            "INSERT INTO tarr VALUES (1, '{2024-03-01,NULL,1969-12-31}', '{10:34:56.789999}', '{10:34:56.789}', "
            """'{10:34:56}', '{"2024-03-01 10:34:56.789123"}', '{"2024-03-01 10:34:56.789"}', """
            """'{"2024-03-01 12:34:56.789+02"}', '{"2024-03-01 12:34:56.7+02"}', '{12:34:56.5+02}', """
            "ARRAY['\\x00ff'::bytea, NULL])",
        ),
        ("INSERT INTO tarr VALUES (2, '{}', NULL, '{}', NULL, '{}', NULL, '{}', NULL, '{}', '{}')",),
    ]
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "tarr", {}, transactions, {"public.tarr": 2})

    both.agree("public.tarr")
    after = both.ours["public.tarr"][0].value["payload"]["after"]
    assert (after["days"], after["times"], after["ztimes"]) == ([19783, None, -1], [38096789000], ["10:34:56Z"])
    assert (after["z3"], after["blobs"]) == (["2024-03-01T10:34:56.700Z"], ["AP8=", None])


def test_a_table_without_a_primary_key_is_keyed_by_its_first_unique_index_as_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """No primary key: the key is the first unique index in pgjdbc's order (by name here) that has no
    expression column, the expression index `a_lower` coming first by name being passed over; a table with no
    unique index at all has events without a key. The same records on both sides."""
    database.execute(
        "CREATE TABLE accounts (email text NOT NULL, region text NOT NULL, code int NOT NULL, note text)",
        "CREATE UNIQUE INDEX a_lower ON accounts (lower(email))",
        "CREATE UNIQUE INDEX b_region_code ON accounts (region, code)",
        "CREATE UNIQUE INDEX c_email ON accounts (email)",
        "ALTER TABLE accounts REPLICA IDENTITY USING INDEX b_region_code",
        "CREATE TABLE notes (body text)",
    )
    transactions = [
        ("INSERT INTO accounts VALUES ('a@x', 'eu', 1, 'first')", "INSERT INTO notes VALUES ('hi')"),
        ("UPDATE accounts SET note = 'second' WHERE code = 1",),
        ("UPDATE accounts SET code = 2 WHERE code = 1",),  # the key changes: delete, tombstone, create
        ("DELETE FROM accounts WHERE code = 2",),
    ]
    counts = {"public.accounts": 7, "public.notes": 1}
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "accounts,notes", {}, transactions, counts)

    both.agree("public.accounts")
    both.agree("public.notes")
    assert both.ours["public.accounts"][0].key["payload"] == {"region": "eu", "code": 1}
    assert both.ours["public.notes"][0].key is None


def test_column_defaults_in_the_schemas_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """Defaults as Debezium puts them in the key and value schemas: literals of the mapped types, a
    placeholder for a generated one (serial's nextval: 0, CURRENT_DATE: 1970-01-01), none for NULL; a
    generated column is in neither side's events (pgoutput does not send it); a null value of a column with
    a default then reads as the default, as Kafka's JsonConverter writes it (replace.null.with.default)."""
    database.execute(
        "CREATE TYPE shade AS ENUM ('light', 'dark')",
        "CREATE TABLE defaults (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'anon', "
        "note varchar(20) DEFAULT 'x', n int DEFAULT -5, big bigint DEFAULT 9007199254740993, "
        "price numeric(8,2) DEFAULT 1.5, ratio float8 DEFAULT 0.25, flag boolean DEFAULT true, "
        """doc jsonb DEFAULT '{"a": 1}', uid uuid DEFAULT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', """
        "day date DEFAULT '2020-02-03', today date DEFAULT CURRENT_DATE, tone shade DEFAULT 'dark', "
        "nothing text DEFAULT NULL, twice int GENERATED ALWAYS AS (n * 2) STORED, "
        "b1 bit DEFAULT B'1', b5 bit(5) DEFAULT B'10100', vb varbit(8) DEFAULT B'110', cash money DEFAULT 2.5, "
        "spot point DEFAULT '(1,2)')",
    )
    transactions = [
        ("INSERT INTO defaults DEFAULT VALUES",),
        ("INSERT INTO defaults (name, note, n, flag, tone) VALUES ('bob', NULL, NULL, false, 'light')",),
    ]
    counts = {"public.defaults": 2}
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "defaults", {}, transactions, counts)

    both.agree("public.defaults")
    first = both.ours["public.defaults"][0]
    fields = {f["field"]: f.get("default") for f in first.value["schema"]["fields"][1]["fields"]}
    assert (fields["id"], fields["name"], fields["today"], fields["nothing"]) == (0, "anon", 0, None)
    # Bit strings have Debezium's defaults (base64 of their little-endian bytes); money and points none.
    assert (fields["b1"], fields["b5"], fields["vb"], fields["cash"]) == (True, "FA==", "Bg==", None)
    assert "twice" not in fields, "pgoutput never sends a generated column"
    assert first.key["schema"]["fields"][0]["default"] == 0
    bob = both.ours["public.defaults"][1].value["payload"]["after"]
    assert (bob["note"], bob["n"]) == ("x", -5), "null values written as their defaults"


def test_temporal_column_defaults_agree_with_debezium_s(
    database: SqlDatabase, kafka_bootstrap: str, java_connect: str, tmp_path: Path
) -> None:
    """time, timestamp, timestamptz and interval defaults, literal and generated (`now()`, `LOCALTIME`,
    `make_interval(...)`: Debezium's placeholders, the epoch, midnight and a zero interval), in the schemas as
    Debezium puts them."""
    database.execute(
        "CREATE TABLE stamps (id int PRIMARY KEY, at timestamp DEFAULT '2020-01-02 03:04:05', "
        "at3 timestamp(3) DEFAULT now(), zoned timestamptz DEFAULT '2020-01-02 03:04:05+02', "
        "znow timestamptz NOT NULL DEFAULT now(), t time DEFAULT '10:11:12', tnow time DEFAULT LOCALTIME, "
        "gap interval DEFAULT '1 day 2 hours', made interval DEFAULT make_interval(days => 1))",
    )
    transactions = [("INSERT INTO stamps (id) VALUES (1)",)]
    both = run_both(java_connect, kafka_bootstrap, database, tmp_path, "stamps", {}, transactions, {"public.stamps": 1})

    both.agree("public.stamps")
    fields = {
        f["field"]: f.get("default") for f in both.ours["public.stamps"][0].value["schema"]["fields"][1]["fields"]
    }
    assert fields["at3"] == 0 and fields["tnow"] == 0 and fields["at"] == 1577934245000000
    assert (fields["gap"], fields["made"]) == ((24 + 2) * 3600 * 1_000_000, 0)
