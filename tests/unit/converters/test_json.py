"""JsonConverter: Kafka Connect's JSON wire format, with and without the schema envelope."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

from connect.api import DataError, Schema, SchemaType, Struct
from connect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
)
from connect.converters import JsonConverter
from connect.converters.json import ENVELOPE_ERROR


def converter(**configs: str) -> JsonConverter:
    c = JsonConverter()
    c.configure(configs, False)
    return c


def round_trip(c: JsonConverter, schema: Schema | None, value: Any) -> Any:
    data = c.from_connect_data("topic", schema, value)
    result = c.to_connect_data("topic", data)
    assert result.schema == schema
    return result.value


def test_struct_bytes_match_what_kafka_writes() -> None:
    schema = Schema.struct([("id", INT32_SCHEMA)])
    data = converter().from_connect_data("t", schema, Struct(schema, {"id": 1}))
    assert data == (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false},'
        b'"payload":{"id":1}}'
    )


def test_schema_json_key_order_and_attributes_follow_kafka() -> None:
    inner = Schema(SchemaType.STRING, optional=True, default="x", name="n", version=2, doc="d", parameters={"k": "v"})
    schema = Schema(
        SchemaType.STRUCT,
        name="com.example.Row",
        fields=Schema.struct([("s", inner), ("a", Schema.array(INT64_SCHEMA))]).fields,
    )
    assert converter().as_json_schema(schema) == (
        b'{"type":"struct","fields":['
        b'{"type":"string","optional":true,"name":"n","version":2,"doc":"d","parameters":{"k":"v"},'
        b'"default":"x","field":"s"},'
        b'{"type":"array","items":{"type":"int64","optional":false},"optional":false,"field":"a"}'
        b'],"optional":false,"name":"com.example.Row"}'
    )


@pytest.mark.parametrize(
    ("schema", "value", "payload"),
    [
        (INT8_SCHEMA, 12, "12"),
        (INT16_SCHEMA, -300, "-300"),
        (INT32_SCHEMA, 70000, "70000"),
        (INT64_SCHEMA, 2**40, str(2**40)),
        (FLOAT32_SCHEMA, 1.5, "1.5"),
        (FLOAT64_SCHEMA, -2.25, "-2.25"),
        (BOOLEAN_SCHEMA, True, "true"),
        (STRING_SCHEMA, "héllo", '"héllo"'),
        (BYTES_SCHEMA, b"\x00\xff", '"AP8="'),
        (Schema.decimal(2), Decimal("12.34"), '"BNI="'),
        (Schema.decimal(0), Decimal("-128"), '"gA=="'),
        (DATE_SCHEMA, dt.date(2024, 1, 2), "19724"),
        (TIME_SCHEMA, dt.time(1, 2, 3, 4000), "3723004"),
        (TIMESTAMP_SCHEMA, dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC), "1704164645006"),
        (Schema.array(INT32_SCHEMA), [1, 2, 3], "[1,2,3]"),
        (Schema.map(STRING_SCHEMA, INT32_SCHEMA), {"a": 1}, '{"a":1}'),
        (Schema.map(INT32_SCHEMA, STRING_SCHEMA), {1: "a", 2: "b"}, '[[1,"a"],[2,"b"]]'),
    ],
)
def test_each_type_has_kafkas_payload_and_round_trips(schema: Schema, value: Any, payload: str) -> None:
    c = converter()
    data = c.from_connect_data("t", schema, value)
    assert data is not None
    assert json.loads(data)["payload"] == json.loads(payload)
    assert round_trip(c, schema, value) == value


def test_nested_struct_array_and_map_round_trip() -> None:
    address = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="Address")
    schema = Schema.struct(
        [
            ("id", INT64_SCHEMA),
            ("address", address),
            ("tags", Schema.array(STRING_SCHEMA)),
            ("scores", Schema.map(STRING_SCHEMA, Schema.array(FLOAT64_SCHEMA))),
            ("history", Schema.array(address)),
            ("balance", Schema.decimal(3, optional=True)),
        ],
        name="Customer",
    )
    value = Struct(
        schema,
        {
            "id": 7,
            "address": Struct(address, {"city": "Oslo"}),
            "tags": ["a", "b"],
            "scores": {"x": [1.0, 2.5]},
            "history": [Struct(address, {"city": "Bergen", "zip": "5003"})],
            "balance": Decimal("-1.250"),
        },
    )
    assert round_trip(converter(), schema, value) == value


def test_envelope_errors_name_the_requirement() -> None:
    c = converter()
    for bad in (b'{"payload":1}', b'{"schema":null}', b'{"schema":null,"payload":1,"x":2}', b"[1]", b"42"):
        with pytest.raises(DataError) as err:
            c.to_connect_data("t", bad)
        assert str(err.value) == ENVELOPE_ERROR
    assert ENVELOPE_ERROR == (
        'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
        "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
        "configuration."
    )


def test_invalid_json_is_a_data_error() -> None:
    with pytest.raises(DataError, match="serialization error"):
        converter().to_connect_data("t", b"{not json")


def test_null_schema_in_the_envelope_gives_a_schemaless_value() -> None:
    result = converter().to_connect_data("t", b'{"schema":null,"payload":{"a":[1,2.5]}}')
    assert result.schema is None
    assert result.value == {"a": [1, 2.5]}


def test_schemaless_values_are_plain_json_and_read_back_inferred() -> None:
    c = converter(**{"schemas.enable": "false"})
    value = {"i": 1, "f": 1.5, "s": "x", "b": True, "n": None, "l": [1, "a"], "m": {"k": {"z": 0}}}
    data = c.from_connect_data("t", None, value)
    assert data is not None and json.loads(data) == value
    result = c.to_connect_data("t", data)
    assert result.schema is None
    assert result.value == value
    assert type(result.value["i"]) is int and type(result.value["f"]) is float


def test_schemaless_with_envelope_writes_a_null_schema() -> None:
    assert converter().from_connect_data("t", None, {"a": 1}) == b'{"schema":null,"payload":{"a":1}}'


def test_schemaless_maps_with_non_string_keys_become_pairs_and_bytes_base64() -> None:
    c = converter(**{"schemas.enable": "false"})
    assert c.from_connect_data("t", None, {1: b"\x01"}) == b'[[1,"AQ=="]]'


def test_schemas_disabled_with_a_schema_writes_only_the_payload() -> None:
    schema = Schema.struct([("id", INT32_SCHEMA)])
    assert converter(**{"schemas.enable": "false"}).from_connect_data("t", schema, Struct(schema, {"id": 3})) == (
        b'{"id":3}'
    )


def test_tombstones() -> None:
    c = converter()
    assert c.from_connect_data("t", None, None) is None
    result = c.to_connect_data("t", None)
    assert result.schema is None and result.value is None
    # Like Kafka: a null value that has a schema is still written as an envelope.
    assert c.from_connect_data("t", OPTIONAL_INT32_SCHEMA, None) == (
        b'{"schema":{"type":"int32","optional":true},"payload":null}'
    )


def test_null_for_a_required_field_without_default_is_an_error() -> None:
    schema = Schema.struct([("id", INT32_SCHEMA)])
    with pytest.raises(DataError, match="null value for field that is required"):
        converter().from_connect_data("t", schema, Struct(schema))
    with pytest.raises(DataError, match="Invalid null value for required INT32 field"):
        converter().to_connect_data(
            "t", b'{"schema":{"type":"struct","fields":[{"type":"int32","field":"id"}]},"payload":{"id":null}}'
        )


def test_defaults_replace_nulls_unless_disabled() -> None:
    field = Schema(SchemaType.INT32, optional=True, default=5)
    schema = Schema.struct([("n", field)])
    with_default = converter().from_connect_data("t", schema, Struct(schema))
    assert with_default is not None and json.loads(with_default)["payload"] == {"n": 5}
    without = converter(**{"replace.null.with.default": "false"}).from_connect_data("t", schema, Struct(schema))
    assert without is not None and json.loads(without)["payload"] == {"n": None}
    read = converter().to_connect_data("t", with_default.replace(b'"n":5', b'"n":null'))
    assert read.value.get("n") == 5


def test_a_boolean_default_is_written_in_the_schema_and_for_a_null() -> None:
    schema = Schema.struct([("flag", Schema(SchemaType.BOOLEAN, optional=True, default=False))])
    written = converter().from_connect_data("t", schema, Struct(schema))
    assert written is not None
    assert json.loads(written)["schema"]["fields"][0]["default"] is False
    assert json.loads(written)["payload"] == {"flag": False}


def test_schema_defaults_round_trip_through_the_schema_json() -> None:
    schema = Schema.struct(
        [
            (
                "d",
                Schema(
                    SchemaType.BYTES,
                    default=Decimal("1.5"),
                    name=Schema.decimal(1).name,
                    version=1,
                    parameters={"scale": "1"},
                ),
            )
        ]
    )
    c = converter()
    read = c.to_connect_data("t", c.from_connect_data("t", schema, Struct(schema, {"d": Decimal("2.0")})))
    assert read.schema == schema
    assert read.schema is not None and read.schema.fields[0].schema.default == Decimal("1.5")


def test_decimal_numeric_format_writes_exact_numbers_and_reads_them_back_exactly() -> None:
    schema = Schema.struct([("price", Schema.decimal(20)), ("qty", FLOAT64_SCHEMA)])
    price = Decimal("12345678901234567890.12345678901234567890")
    c = converter(**{"decimal.format": "numeric"})
    data = c.from_connect_data("t", schema, Struct(schema, {"price": price, "qty": 2.5}))
    assert data is not None
    assert b'"payload":{"price":12345678901234567890.12345678901234567890,"qty":2.5}' in data
    read = c.to_connect_data("t", data)
    assert read.value.get("price") == price
    assert read.value.get("qty") == 2.5 and type(read.value.get("qty")) is float


def test_a_base64_decimal_reads_in_a_numeric_converter_too() -> None:
    data = converter().from_connect_data("t", Schema.decimal(2), Decimal("0.01"))
    assert converter(**{"decimal.format": "NUMERIC"}).to_connect_data("t", data).value == Decimal("0.01")


def test_wrong_python_types_are_data_errors() -> None:
    schema = Schema.struct([("id", INT32_SCHEMA)])
    with pytest.raises(DataError, match="INT32"):
        converter().from_connect_data("t", schema, Struct(schema, {"id": "one"}))
    with pytest.raises(DataError, match="Mismatching schema"):
        converter().from_connect_data("t", schema, {"id": 1})
    with pytest.raises(DataError, match="Decimal value has mismatching scale"):
        converter().from_connect_data("t", Schema.decimal(1), Decimal("1.25"))


def test_malformed_schemas_are_reported() -> None:
    c = converter()
    with pytest.raises(DataError, match="Unknown schema type: int128"):
        c.to_connect_data("t", b'{"schema":{"type":"int128"},"payload":1}')
    with pytest.raises(DataError, match="Array schema did not specify the element type"):
        c.to_connect_data("t", b'{"schema":{"type":"array"},"payload":[]}')
    with pytest.raises(DataError, match="field name not specified"):
        c.to_connect_data("t", b'{"schema":{"type":"struct","fields":[{"type":"int8"}]},"payload":{}}')


def test_reads_kafka_written_messages_with_whitespace_and_key_order() -> None:
    data = (
        b'{ "payload": {"b": "AQI=", "t": 86400000},\n'
        b'  "schema": {"optional": false, "fields": [\n'
        b'     {"field": "b", "type": "bytes", "optional": false},\n'
        b'     {"field": "t", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1}],\n'
        b'   "type": "struct"} }'
    )
    value = converter().to_connect_data("t", data).value
    assert value.get("b") == b"\x01\x02"
    assert value.get("t") == dt.datetime(1970, 1, 2, tzinfo=dt.UTC)


def test_repeated_messages_use_the_cached_schema_and_still_validate_the_envelope() -> None:
    schema = Schema.struct([("id", INT32_SCHEMA)])
    c = converter()
    first = c.from_connect_data("t", schema, Struct(schema, {"id": 1}))
    assert first is not None
    a = c.to_connect_data("t", first)
    b = c.to_connect_data("t", first.replace(b'"id":1', b'"id":2'))
    assert a.schema is b.schema
    assert b.value.get("id") == 2
    tampered = first[:-1] + b',"extra":1}'
    with pytest.raises(DataError) as err:
        c.to_connect_data("t", tampered)
    assert str(err.value) == ENVELOPE_ERROR


def test_equal_schema_objects_share_one_cache_entry_and_the_cache_is_bounded() -> None:
    c = converter(**{"schemas.cache.size": "2"})
    for i in range(5):
        schema = Schema.struct([(f"f{i}", INT32_SCHEMA)])
        assert c.from_connect_data("t", schema, Struct(schema, {f"f{i}": i})) is not None
    assert len(c._encode_by_id) <= 2 and len(c._encode_by_json) <= 2


def test_batches_convert_like_single_records() -> None:
    c = converter()
    schema = Schema.struct([("id", INT32_SCHEMA)])
    items = [(schema, Struct(schema, {"id": i})) for i in range(3)] + [(None, None)]
    data = c.from_connect_batch("t", items)
    assert data[-1] is None
    assert [r.value for r in map(c.to_connect_data, ["t"] * len(data), data)] == [v for _, v in items]


def test_config_def_and_header_use() -> None:
    c = JsonConverter()
    assert set(c.config().names()) >= {
        "schemas.enable",
        "schemas.cache.size",
        "decimal.format",
        "replace.null.with.default",
        "converter.type",
    }
    c.configure({"schemas.enable": "false"})  # header converters are configured without is_key
    assert c.from_connect_header("t", "h", None, {"a": 1}) == b'{"a":1}'
    assert c.to_connect_header("t", "h", b"[1]").value == [1]


def test_a_numeric_decimal_default_in_a_schema_is_read() -> None:
    data = (
        b'{"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
        b'"parameters":{"scale":"2"},"default":1.25},"payload":null}'
    )
    result = converter(**{"decimal.format": "NUMERIC"}).to_connect_data("t", data)
    assert result.schema is not None and result.schema.default == Decimal("1.25")
    assert result.value == Decimal("1.25")
