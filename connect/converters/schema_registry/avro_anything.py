"""Schemaless values in Avro, as Confluent's AvroData writes them: a record `io.confluent.connect.avro.Anything`
with one optional field per kind of value (boolean, bytes, double, float, int, long, string, an array of
Anything, a map as an array of Anything key/value entries), the value's kind set and the others null.
Read back, the set field gives the value (ints as Python ints, maps as dicts) and the schema is None.
Pure functions, any thread.
"""

from __future__ import annotations

from typing import Any

from connect.api.data import Struct
from connect.api.errors import DataError
from connect.converters.schema_registry import avro_names as n

FULL_NAME = f"{n.NAMESPACE}.Anything"
_SCALARS = ("boolean", "bytes", "double", "float", "int", "long", "string")


def _optional(kind: Any) -> dict[str, Any]:
    return {"type": ["null", kind], "default": None}


ANYTHING_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Anything",
    "namespace": n.NAMESPACE,
    "fields": [
        *({"name": kind, **_optional(kind)} for kind in _SCALARS),
        {"name": "array", **_optional({"type": "array", "items": FULL_NAME})},
        {
            "name": "map",
            **_optional(
                {
                    "type": "array",
                    "items": {
                        "type": "record",
                        "name": n.MAP_ENTRY_TYPE_NAME,
                        "namespace": n.NAMESPACE,
                        "fields": [
                            {"name": n.KEY_FIELD, "type": FULL_NAME},
                            {"name": n.VALUE_FIELD, "type": FULL_NAME},
                        ],
                    },
                }
            ),
        },
    ],
}


def is_anything(avro: Any) -> bool:
    return (
        isinstance(avro, dict)
        and avro.get("type") == "record"
        and (avro.get("name") == FULL_NAME or (avro.get("name"), avro.get("namespace")) == ("Anything", n.NAMESPACE))
    )


def to_anything(value: Any) -> dict[str, Any]:
    """A schemaless Connect value as an Anything record (the dict fastavro writes); Python ints are longs."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, int):
        return {"long": value}
    if isinstance(value, float):
        return {"double": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": bytes(value)}
    if isinstance(value, list | tuple):
        return {"array": [to_anything(v) for v in value]}
    if isinstance(value, dict):
        return {"map": [{n.KEY_FIELD: to_anything(k), n.VALUE_FIELD: to_anything(v)} for k, v in value.items()]}
    if isinstance(value, Struct):
        raise DataError("A Struct needs its schema: a schemaless value cannot be a Struct")
    raise DataError(f"Unknown type for schemaless data: {type(value).__name__}")


def from_anything(record: dict[str, Any]) -> Any:
    """The schemaless Connect value of an Anything record as fastavro reads it."""
    for kind in _SCALARS:
        value = record.get(kind)
        if value is not None:
            return value
    items = record.get("array")
    if items is not None:
        return [from_anything(item) for item in items]
    entries = record.get("map")
    if entries is not None:
        return {from_anything(e[n.KEY_FIELD]): from_anything(e[n.VALUE_FIELD]) for e in entries}
    return None
