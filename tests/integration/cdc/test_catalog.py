"""What the connector reads from and sets up in a real PostgreSQL 15 catalog: the tables its filters
capture, each table's columns, nullability and primary key in key order, the publication per
`publication.autocreate.mode`, and the slot's state."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from connect.api.errors import ConnectError
from connectors.cdc.postgres.catalog import (
    TableFilter,
    captured_tables,
    check_logical_decoding,
    ensure_publication,
    slot_state,
    table_info,
)
from connectors.cdc.postgres.events import ColumnInfo
from connectors.cdc.postgres.replication import ReplicationStream
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.replication_slots import drop_slot

pytestmark = pytest.mark.integration


@pytest.fixture
def connection(postgres_database: SqlDatabase) -> Iterator[psycopg.Connection]:
    postgres_database.execute(
        "CREATE SCHEMA sales",
        "CREATE TABLE public.a (id int PRIMARY KEY, gone int, name text NOT NULL)",
        "ALTER TABLE public.a DROP COLUMN gone",
        "CREATE TABLE sales.orders (region text, id bigint, note varchar(20), PRIMARY KEY (id, region))",
        "CREATE TABLE sales.audit (at timestamptz)",
    )
    with psycopg.connect(**postgres_database.connection_params()) as connection:
        yield connection


def test_the_server_is_ready_and_filters_capture_as_debezium_s_anchored_expressions(
    connection: psycopg.Connection,
) -> None:
    check_logical_decoding(connection)
    everything = [("public", "a"), ("sales", "audit"), ("sales", "orders")]
    assert captured_tables(connection, TableFilter()) == everything
    assert captured_tables(connection, TableFilter(table_include="sales\\..*")) == everything[1:]
    assert captured_tables(connection, TableFilter(table_include="sales.o")) == []  # anchored: the whole name
    assert captured_tables(connection, TableFilter(table_exclude="public.a, sales.audit")) == [("sales", "orders")]
    assert captured_tables(connection, TableFilter(schema_include="public")) == [("public", "a")]
    assert captured_tables(connection, TableFilter(schema_exclude="public")) == everything[1:]


def test_a_table_s_columns_nullability_and_primary_key_in_key_order(connection: psycopg.Connection) -> None:
    orders = table_info(connection, "sales", "orders")
    assert orders.columns == (
        ColumnInfo("region", 25, -1, optional=False),  # part of the key: NOT NULL
        ColumnInfo("id", 20, -1, optional=False),
        ColumnInfo("note", 1043, 24, optional=True),
    )
    assert orders.key_columns == ("id", "region")
    assert [c.name for c in table_info(connection, "public", "a").columns] == ["id", "name"]  # dropped: gone
    assert table_info(connection, "sales", "audit").key_columns == ()


def publication_tables(connection: psycopg.Connection, name: str) -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s ORDER BY 1, 2", (name,)
        )
        return [(str(s), str(t)) for s, t in cursor.fetchall()]


def test_publications_per_autocreate_mode(connection: psycopg.Connection) -> None:
    with pytest.raises(ConnectError, match=r"autocreate\.mode=disabled"):
        ensure_publication(connection, "p_disabled", "disabled", [])
    ensure_publication(connection, "p_filtered", "filtered", [("sales", "orders")])
    assert publication_tables(connection, "p_filtered") == [("sales", "orders")]
    ensure_publication(connection, "p_filtered", "filtered", [("public", "a"), ("sales", "orders")])
    assert publication_tables(connection, "p_filtered") == [("public", "a"), ("sales", "orders")]
    ensure_publication(connection, "p_filtered", "disabled", [])  # exists: nothing to do
    ensure_publication(connection, "p_none", "no_tables", [("public", "a")])
    assert publication_tables(connection, "p_none") == []
    ensure_publication(connection, "p_all", "all_tables", [])
    assert ("sales", "audit") in publication_tables(connection, "p_all")
    with pytest.raises(ConnectError, match="would be empty"):
        ensure_publication(connection, "p_empty", "filtered", [])


def test_a_slot_s_state(postgres_database: SqlDatabase, connection: psycopg.Connection) -> None:
    name = f"kc_{postgres_database.name}"
    assert slot_state(connection, name) is None
    stream = ReplicationStream(postgres_database.connection_params(), name, ["x"])
    try:
        created = stream.create_slot()
        state = slot_state(connection, name)
        assert state is not None and state.plugin == "pgoutput"
        assert state.confirmed_flush_lsn == created.consistent_point
    finally:
        stream.close()
        drop_slot(postgres_database, name)
