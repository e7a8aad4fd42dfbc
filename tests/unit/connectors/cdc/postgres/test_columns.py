"""Column filters and custom keys as Debezium's TableSchemaBuilder and Key.CustomKeyMapper apply them: a
filtered-out column leaves the rows but never the key; `message.key.columns` picks a table's key columns by
regular expressions on `schema.table.column`, else the primary key stays."""

from __future__ import annotations

import dataclasses

from connectors.cdc.postgres.columns import ColumnFilter, KeyColumns, key_columns_problem
from connectors.cdc.postgres.events import ColumnInfo, EventContext, TableEvents, TableInfo
from connectors.cdc.postgres.source_info import ChangePosition, SourceInfo

TABLE = TableInfo(
    "public",
    "customers",
    (
        ColumnInfo("id", 23, -1, optional=False),
        ColumnInfo("email", 25, -1, optional=False),
        ColumnInfo("secret", 25, -1, optional=True),
        ColumnInfo("region", 25, -1, optional=True),
    ),
    ("id",),
)
AT = EventContext(SourceInfo("v", "srv", "db").struct("public", "customers", ChangePosition(1, 2, 3, 3)), 0)


def test_an_exclude_list_drops_columns_of_matching_tables_only() -> None:
    assert ColumnFilter(exclude="public.customers.secret").excluded(TABLE) == {"secret"}
    assert ColumnFilter(exclude="public.Customers.SECRET, .*\\.region").excluded(TABLE) == {"secret", "region"}
    assert ColumnFilter(exclude="other.customers.secret").excluded(TABLE) == set()
    assert ColumnFilter(exclude="public.customers.sec").excluded(TABLE) == set()  # the whole name must match


def test_an_include_list_keeps_only_the_columns_it_names() -> None:
    assert ColumnFilter(include="public.customers.(id|email)").excluded(TABLE) == {"secret", "region"}


def test_an_excluded_key_column_leaves_the_rows_but_stays_in_the_key() -> None:
    events = TableEvents(TABLE, "srv.public.customers", excluded_columns=frozenset({"id", "secret"}))
    assert [f.name for f in events.value_schema.fields] == ["email", "region"]
    assert events.key_schema is not None and [f.name for f in events.key_schema.fields] == ["id"]
    (record,) = events.insert(("7", "a@b", "s", None), AT)
    assert record.key is not None and record.key.get("id") == 7
    assert record.value is not None and dict(record.value.get("after").items()) == {"email": "a@b", "region": None}


def test_message_key_columns_pick_columns_pair_by_pair_and_other_tables_keep_their_primary_key() -> None:
    assert KeyColumns("public.customers:region,email").of(TABLE) == ("region", "email")
    assert KeyColumns("public\\.customers:e.*;other.t:x").of(TABLE) == ("email",)
    # The pairs join with an unescaped `.`: `c.*` then reaches across it, as in Debezium
    assert KeyColumns("public\\.c.*:e.*").of(TABLE) == ("id", "email", "secret", "region")
    assert KeyColumns("other.t:x").of(TABLE) == ("id",)
    keyed = TableEvents(dataclasses.replace(TABLE, key_columns=KeyColumns("public.customers:region").of(TABLE)), "t")
    assert keyed.key_schema is not None and [(f.name, f.schema.optional) for f in keyed.key_schema.fields] == [
        ("region", True)
    ]


def test_a_malformed_key_columns_list_is_named() -> None:
    assert key_columns_problem("public.customers:id;public.orders:a,b") is None
    assert key_columns_problem("public.customers") == "'public.customers' is not <table regex>:<column>[,<column>...]"
    assert key_columns_problem("a:b:c") is not None
