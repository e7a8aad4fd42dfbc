"""One table's change events: keys and rows named after the topic, the records of inserts, updates,
deletes and primary-key changes, unchanged TOASTed values, and the values of NOT NULL columns the server
did not send."""

from __future__ import annotations

import pytest

from connect.api.data import Struct
from connectors.cdc.postgres.events import (
    DEFAULT_PLACEHOLDER,
    PK_UPDATE_NEWKEY_HEADER,
    PK_UPDATE_OLDKEY_HEADER,
    ColumnInfo,
    EventContext,
    TableEvents,
    TableInfo,
)
from connectors.cdc.postgres.pgoutput import UNCHANGED_TOAST
from connectors.cdc.postgres.source_info import ChangePosition, SourceInfo

TABLE = TableInfo(
    "public",
    "customers",
    (
        ColumnInfo("id", 23, -1, optional=False),
        ColumnInfo("name", 25, -1, optional=False),
        ColumnInfo("note", 25, -1, optional=True),
        ColumnInfo("spot", 601, -1, optional=True),  # lseg: no mapping yet
    ),
    ("id",),
)
AT = EventContext(SourceInfo("v", "srv", "db").struct("public", "customers", ChangePosition(1, 2, 3, 3)), 10**18)


def events(tombstones: bool = True) -> TableEvents:
    return TableEvents(TABLE, "srv.public.customers", tombstones_on_delete=tombstones)


def after(record_value: Struct | None) -> dict[str, object] | None:
    row = record_value.get("after") if record_value is not None else None
    return dict(row.items()) if row is not None else None


def test_schemas_are_named_after_the_topic_and_columns_without_a_mapping_are_left_out() -> None:
    table = events()
    assert table.key_schema is not None and table.key_schema.name == "srv.public.customers.Key"
    assert [f.name for f in table.key_schema.fields] == ["id"]
    assert table.value_schema.name == "srv.public.customers.Value" and table.value_schema.optional
    assert [f.name for f in table.value_schema.fields] == ["id", "name", "note"]
    assert table.skipped == ["spot"]
    assert table.envelope_schema.name == "srv.public.customers.Envelope"


def test_an_insert_is_one_create_keyed_by_the_primary_key() -> None:
    (record,) = events().insert(("1", "ann", None, "(1,2)"), AT)
    assert record.key is not None and dict(record.key.items()) == {"id": 1}
    assert record.value is not None and record.value.get("op") == "c" and record.value.get("before") is None
    assert after(record.value) == {"id": 1, "name": "ann", "note": None}


def test_an_update_without_the_old_row_has_no_before_and_unchanged_toast_becomes_the_placeholder() -> None:
    (record,) = events().update(("1", "anne", UNCHANGED_TOAST, None), None, AT)
    assert record.value is not None and record.value.get("op") == "u" and record.value.get("before") is None
    assert after(record.value) == {"id": 1, "name": "anne", "note": DEFAULT_PLACEHOLDER}


def test_an_update_with_the_full_old_row_takes_unchanged_toast_from_it() -> None:
    (record,) = events().update(("1", "anne", UNCHANGED_TOAST, None), ("1", "ann", "long text", None), AT)
    assert record.value is not None
    assert dict(record.value.get("before").items()) == {"id": 1, "name": "ann", "note": "long text"}
    assert after(record.value) == {"id": 1, "name": "anne", "note": "long text"}


def test_a_primary_key_change_is_a_delete_a_tombstone_and_a_create_each_naming_the_other_key() -> None:
    deleted, tombstone, created = events().update(("2", "ann", None, None), ("1", None, None, None), AT)
    assert deleted.key is not None and dict(deleted.key.items()) == {"id": 1}
    assert deleted.value is not None and deleted.value.get("op") == "d"
    # the old row came with its key only: the NOT NULL name gets Debezium's fallback, the nullable note null
    assert dict(deleted.value.get("before").items()) == {"id": 1, "name": "", "note": None}
    ((name, _, new_key),) = deleted.headers
    assert name == PK_UPDATE_NEWKEY_HEADER and dict(new_key.items()) == {"id": 2}
    assert tombstone.value is None and tombstone.key == deleted.key and tombstone.value_schema is None
    assert tombstone.headers == deleted.headers  # Debezium copies the delete's headers to its tombstone
    assert created.value is not None and created.value.get("op") == "c"
    ((name, _, old_key),) = created.headers
    assert name == PK_UPDATE_OLDKEY_HEADER and dict(old_key.items()) == {"id": 1}


@pytest.mark.parametrize("tombstones", [True, False])
def test_a_delete_is_followed_by_a_tombstone_unless_tombstones_are_off(tombstones: bool) -> None:
    records = events(tombstones).delete(("1", None, None, None), AT)
    assert [r.value is None for r in records] == ([False, True] if tombstones else [False])
    assert records[0].value is not None and records[0].value.get("after") is None


def test_a_truncate_has_neither_key_nor_key_schema_and_only_its_source() -> None:
    table = events()
    (record,) = table.truncate(AT)
    assert (record.key_schema, record.key, record.value_schema) == (None, None, table.envelope_schema)
    assert record.value is not None
    assert (record.value.get("op"), record.value.get("before"), record.value.get("after")) == ("t", None, None)
    assert record.value.get("source") is AT.source
