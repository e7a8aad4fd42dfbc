"""Connect schema -> JSON Schema (as JSON-ready Python values), the mapping of Confluent's
`JsonSchemaData.fromConnectSchema`: integers and numbers carry `connect.type` (int8 ... float64, bytes,
map), optional schemas are `oneOf` null and the type, struct fields keep their order in `connect.index`,
maps with non-string keys are arrays of `{key, value}` objects, a Connect name is the `title`, a doc the
`description`, and version and parameters go into `connect.version` / `connect.parameters`. Pure
functions, any thread.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from connect.api.data import DECIMAL_NAME, Schema, SchemaType
from connect.api.errors import DataError

NAMESPACE = "io.confluent.connect.json"
CONNECT_TYPE_PROP = "connect.type"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INDEX_PROP = "connect.index"
JSON_TYPE_ENUM = f"{NAMESPACE}.Enum"
JSON_TYPE_ENUM_PREFIX = JSON_TYPE_ENUM + "."
JSON_TYPE_ONE_OF = f"{NAMESPACE}.OneOf"
KEY_FIELD = "key"
VALUE_FIELD = "value"
NULL_SCHEMA = {"type": "null"}

_NUMBERS = {
    SchemaType.INT8: "integer",
    SchemaType.INT16: "integer",
    SchemaType.INT32: "integer",
    SchemaType.INT64: "integer",
    SchemaType.FLOAT32: "number",
    SchemaType.FLOAT64: "number",
}


def json_schema_of(
    schema: Schema, default_to_json: Any, index: int | None = None, *, ignore_optional: bool = False
) -> dict[str, Any]:
    """The JSON Schema of a Connect schema; `default_to_json` turns a default value into JSON."""
    kind = schema.type
    result: dict[str, Any]
    combined = False
    if kind in _NUMBERS:
        result = {"type": _NUMBERS[kind], CONNECT_TYPE_PROP: kind.value}
    elif kind is SchemaType.BOOLEAN:
        result = {"type": "boolean"}
    elif kind is SchemaType.STRING:
        params = schema.parameters or {}
        result = {"type": "string"}
        if JSON_TYPE_ENUM in params:
            result["enum"] = [v for k, v in params.items() if k.startswith(JSON_TYPE_ENUM_PREFIX)]
    elif kind is SchemaType.BYTES:
        result = {"type": "number" if schema.name == DECIMAL_NAME else "string", CONNECT_TYPE_PROP: "bytes"}
    elif kind is SchemaType.ARRAY:
        assert schema.value_schema is not None
        result = {"type": "array", "items": json_schema_of(schema.value_schema, default_to_json)}
    elif kind is SchemaType.MAP:
        keys, values = schema.key_schema, schema.value_schema
        assert keys is not None and values is not None
        if keys.type is SchemaType.STRING and not keys.optional:
            result = {
                "type": "object",
                "additionalProperties": json_schema_of(values, default_to_json),
                CONNECT_TYPE_PROP: "map",
            }
        else:
            entry = {
                "type": "object",
                "properties": {
                    KEY_FIELD: json_schema_of(keys, default_to_json, 0),
                    VALUE_FIELD: json_schema_of(values, default_to_json, 1),
                },
            }
            result = {"type": "array", "items": entry, CONNECT_TYPE_PROP: "map"}
    elif kind is SchemaType.STRUCT:
        if schema.name == JSON_TYPE_ONE_OF:
            branches = [NULL_SCHEMA] if schema.optional else []
            branches.extend(
                json_schema_of(f.schema, default_to_json, f.index, ignore_optional=True) for f in schema.fields
            )
            result, combined = {"oneOf": branches}, True
        elif schema.optional and not ignore_optional:
            inner = json_schema_of(_required(schema), default_to_json)
            result, combined = {"oneOf": [NULL_SCHEMA, inner]}, True
        else:
            result = {
                "type": "object",
                "properties": {f.name: json_schema_of(f.schema, default_to_json, f.index) for f in schema.fields},
            }
    else:
        raise DataError(f"Unsupported type {kind.name}")
    if not combined:
        if schema.name is not None:
            result["title"] = schema.name
        if schema.version is not None:
            result[CONNECT_VERSION_PROP] = schema.version
        if schema.doc is not None:
            result["description"] = schema.doc
        params = {k: v for k, v in (schema.parameters or {}).items() if not k.startswith(NAMESPACE)}
        if params:
            result[CONNECT_PARAMETERS_PROP] = params
        if schema.default is not None:
            result["default"] = default_to_json(schema, schema.default)
        if schema.optional and not ignore_optional:
            wrapped: dict[str, Any] = {"oneOf": [NULL_SCHEMA, result]}
            if index is not None:
                wrapped[CONNECT_INDEX_PROP] = index
            return wrapped
    if index is not None:
        result[CONNECT_INDEX_PROP] = index
    return result


def _required(schema: Schema) -> Schema:
    return dataclasses.replace(schema, optional=False)
