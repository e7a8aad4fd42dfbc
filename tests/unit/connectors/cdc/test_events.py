"""Debezium's names, envelope and PostgreSQL `source` block, as bytes a consumer of Debezium's topics reads
through JsonConverter (the example event of Debezium's PostgreSQL documentation, timestamps aside)."""

from __future__ import annotations

import orjson

from connect.api.data import Schema, SchemaType, Struct
from connect.converters.json import JsonConverter
from connectors.cdc.envelope import Operation, TransactionPosition, envelope, envelope_schema
from connectors.cdc.metadata_records import heartbeat, transaction_begin, transaction_end
from connectors.cdc.naming import TopicNaming, key_schema_name, sanitized_topic, value_schema_name
from connectors.cdc.postgres.source_info import SOURCE_SCHEMA, ChangePosition, SnapshotMark, SourceInfo, sequence


def json(schemas: bool, schema: Schema, value: Struct) -> bytes:
    converter = JsonConverter()
    converter.configure({"schemas.enable": schemas}, False)
    encoded = converter.from_connect_data("t", schema, value)
    assert encoded is not None
    return encoded


def test_topics_and_schemas_are_named_as_debezium_names_them() -> None:
    naming = TopicNaming("srv")
    assert naming.data_topic("public", "customers") == "srv.public.customers"
    assert naming.data_topic("My Schema", "tab$le") == "srv.My_Schema.tab_le"
    assert naming.heartbeat_topic == "__debezium-heartbeat.srv"
    assert naming.transaction_topic == "srv.transaction"
    assert sanitized_topic("a/b:c") == "a_b_c"
    assert sanitized_topic("x" * 300) == "x" * 249
    assert sanitized_topic("..") == "__"
    assert TopicNaming("srv").data_topic("", "t") == "srv.t"  # blank parts are left out
    assert key_schema_name("srv.public.customers") == "srv.public.customers.Key"
    assert value_schema_name("srv.public.customers") == "srv.public.customers.Value"


POSITION = ChangePosition(commit_time_us=1559033904863123, tx_id=555, lsn=24023128, commit_lsn=24023119)


def test_the_source_block_has_debezium_s_fields_in_debezium_s_order() -> None:
    source = SourceInfo("3.6.1.Final", "srv", "postgres").struct("public", "customers", POSITION)
    assert json(False, SOURCE_SCHEMA, source) == orjson.dumps(
        {
            "version": "3.6.1.Final",
            "connector": "postgresql",
            "name": "srv",
            "ts_ms": 1559033904863,
            "snapshot": "false",
            "db": "postgres",
            "sequence": '["24023119","24023128"]',
            "ts_us": 1559033904863123,
            "ts_ns": 1559033904863123000,
            "schema": "public",
            "table": "customers",
            "txId": 555,
            "lsn": 24023128,
            "xmin": None,
            "origin": None,
            "origin_lsn": None,
        }
    )


def test_the_snapshot_field_is_debezium_s_enum_with_its_default() -> None:
    field = SOURCE_SCHEMA.field("snapshot")
    assert field is not None
    described = orjson.loads(JsonConverter().as_json_schema(field.schema))
    assert described == {
        "type": "string",
        "optional": True,
        "default": "false",
        "name": "io.debezium.data.Enum",
        "version": 1,
        "parameters": {"allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"},
    }


def test_incremental_snapshot_rows_leave_out_the_transaction_and_positions() -> None:
    source = SourceInfo("v", "srv", "db").struct("s", "t", POSITION, SnapshotMark.INCREMENTAL)
    assert (source.get("txId"), source.get("lsn"), source.get("xmin")) == (None, None, None)
    assert source.get("snapshot") == "incremental"
    assert sequence(None, 7) == '[null,"7"]'


def test_an_envelope_carries_the_row_the_source_the_transaction_and_the_processing_time() -> None:
    row = Schema.struct([("id", Schema(SchemaType.INT32)), ("email", Schema(SchemaType.STRING, optional=True))])
    row = Schema(SchemaType.STRUCT, name="srv.public.customers.Value", fields=row.fields)
    schema = envelope_schema("srv.public.customers", row, SOURCE_SCHEMA)
    source = SourceInfo("3.6.1.Final", "srv", "postgres").struct("public", "customers", POSITION)
    after = Struct(row.as_optional(), {"id": 1, "email": "a@b"})
    value = envelope(
        schema,
        Operation.CREATE,
        source,
        1559033904900123456,
        after=after,
        transaction=TransactionPosition("555:24023128", 1, 1),
    )
    encoded = orjson.loads(json(True, schema, value))
    assert encoded["schema"]["name"] == "srv.public.customers.Envelope"
    assert encoded["schema"]["version"] == 2
    assert [f["field"] for f in encoded["schema"]["fields"]] == [
        "before",
        "after",
        "source",
        "transaction",
        "op",
        "ts_ms",
        "ts_us",
        "ts_ns",
    ]
    assert encoded["schema"]["fields"][3] == {
        "type": "struct",
        "fields": [
            {"type": "string", "optional": False, "field": "id"},
            {"type": "int64", "optional": False, "field": "total_order"},
            {"type": "int64", "optional": False, "field": "data_collection_order"},
        ],
        "optional": True,
        "name": "event.block",
        "version": 1,
        "field": "transaction",
    }
    payload = encoded["payload"]
    assert payload["before"] is None
    assert payload["after"] == {"id": 1, "email": "a@b"}
    assert payload["op"] == "c"
    assert payload["transaction"] == {"id": "555:24023128", "total_order": 1, "data_collection_order": 1}
    assert (payload["ts_ms"], payload["ts_us"], payload["ts_ns"]) == (
        1559033904900,
        1559033904900123,
        1559033904900123456,
    )


def test_heartbeats_and_transaction_boundaries_have_debezium_s_schemas() -> None:
    key, value = heartbeat("srv", 1700000000000)
    assert orjson.loads(json(True, key.schema, key)) == {
        "schema": {
            "type": "struct",
            "fields": [{"type": "string", "optional": False, "field": "serverName"}],
            "optional": False,
            "name": "io.debezium.connector.common.ServerNameKey",
            "version": 1,
        },
        "payload": {"serverName": "srv"},
    }
    assert json(False, value.schema, value) == b'{"ts_ms":1700000000000}'
    _, begin = transaction_begin("555:24023128", 1)
    assert json(False, begin.schema, begin) == (
        b'{"status":"BEGIN","id":"555:24023128","event_count":null,"data_collections":null,"ts_ms":1}'
    )
    _, end = transaction_end("555:24023128", 1, {"public.a": 2, "public.b": 1})
    assert orjson.loads(json(False, end.schema, end)) == {
        "status": "END",
        "id": "555:24023128",
        "event_count": 3,
        "data_collections": [
            {"data_collection": "public.a", "event_count": 2},
            {"data_collection": "public.b", "event_count": 1},
        ],
        "ts_ms": 1,
    }
