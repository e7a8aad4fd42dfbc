"""Kafka Connect schemas <-> their JSON form in the `{"schema", "payload"}` envelope.

Key order follows Kafka's JsonConverter (type, items | keys, values | fields, optional, name,
version, doc, parameters, default; a struct field's schema ends with "field"), so the bytes match a
Java worker's. Pure functions of the schema and the converter's options; callers cache the results.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from connect.api.data import Field, Schema, SchemaType
from connect.api.errors import DataError
from connect.converters.json_decode import InexactNumber, compile_decoder
from connect.converters.json_encode import compile_encoder
from connect.converters.json_payload import JsonOptions

_TYPE_NAMES = {
    SchemaType.BOOLEAN: "boolean",
    SchemaType.INT8: "int8",
    SchemaType.INT16: "int16",
    SchemaType.INT32: "int32",
    SchemaType.INT64: "int64",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.BYTES: "bytes",
    SchemaType.STRING: "string",
    SchemaType.ARRAY: "array",
    SchemaType.MAP: "map",
    SchemaType.STRUCT: "struct",
}
_TYPES_BY_NAME = {name: kind for kind, name in _TYPE_NAMES.items()}


def schema_to_json(schema: Schema, options: JsonOptions) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _TYPE_NAMES[schema.type]}
    if schema.type is SchemaType.ARRAY:
        out["items"] = _optional_schema_to_json(schema.value_schema, options)
    elif schema.type is SchemaType.MAP:
        out["keys"] = _optional_schema_to_json(schema.key_schema, options)
        out["values"] = _optional_schema_to_json(schema.value_schema, options)
    elif schema.type is SchemaType.STRUCT:
        out["fields"] = [{**schema_to_json(f.schema, options), "field": f.name} for f in schema.fields]
    out["optional"] = schema.optional
    if schema.name is not None:
        out["name"] = schema.name
    if schema.version is not None:
        out["version"] = schema.version
    if schema.doc is not None:
        out["doc"] = schema.doc
    if schema.parameters is not None:
        out["parameters"] = dict(schema.parameters)
    if schema.default is not None:
        out["default"] = compile_encoder(schema, options)(schema.default)
    return out


def _optional_schema_to_json(schema: Schema | None, options: JsonOptions) -> dict[str, Any] | None:
    return None if schema is None else schema_to_json(schema, options)


def schema_from_json(node: Any, options: JsonOptions) -> Schema | None:
    """The Connect schema of a parsed JSON schema (None for JSON null); DataError when malformed."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise DataError("Schema must contain 'type' field")
    type_name = node.get("type")
    if not isinstance(type_name, str):
        raise DataError("Schema must contain 'type' field")
    kind = _TYPES_BY_NAME.get(type_name)
    if kind is None:
        raise DataError(f"Unknown schema type: {type_name}")
    key_schema = value_schema = None
    fields: tuple[Field, ...] = ()
    if kind is SchemaType.ARRAY:
        items = node.get("items")
        if items is None:
            raise DataError("Array schema did not specify the element type")
        value_schema = schema_from_json(items, options)
    elif kind is SchemaType.MAP:
        if "keys" not in node:
            raise DataError("Map schema did not specify the key type")
        if "values" not in node:
            raise DataError("Map schema did not specify the value type")
        key_schema = schema_from_json(node["keys"], options)
        value_schema = schema_from_json(node["values"], options)
    elif kind is SchemaType.STRUCT:
        fields = _fields_from_json(node.get("fields"), options)
    parameters = node.get("parameters")
    if isinstance(parameters, dict):
        if not all(isinstance(v, str) for v in parameters.values()):
            raise DataError("Schema parameters must have string values.")
    else:
        parameters = None
    version = node.get("version")
    schema = Schema(
        kind,
        optional=node.get("optional") is True,
        name=_text(node.get("name")),
        version=version if isinstance(version, int) and not isinstance(version, bool) else None,
        doc=_text(node.get("doc")),
        parameters=parameters,
        fields=fields,
        key_schema=key_schema,
        value_schema=value_schema,
    )
    if node.get("default") is not None:
        try:
            default = compile_decoder(schema, options)(node["default"])
        except InexactNumber:  # a NUMERIC decimal default: as exact as the float orjson read
            default = Decimal(repr(node["default"]))
        schema = Schema(
            kind,
            schema.optional,
            default,
            schema.name,
            schema.version,
            schema.doc,
            schema.parameters,
            fields,
            key_schema,
            value_schema,
        )
    return schema


def _fields_from_json(nodes: Any, options: JsonOptions) -> tuple[Field, ...]:
    if not isinstance(nodes, list):
        raise DataError('Struct schema\'s "fields" argument is not an array.')
    fields = []
    for index, node in enumerate(nodes):
        name = node.get("field") if isinstance(node, dict) else None
        if not isinstance(name, str):
            raise DataError("Struct schema's field name not specified properly")
        field_schema = schema_from_json(node, options)
        assert field_schema is not None  # a dict node always yields a schema
        fields.append(Field(name, index, field_schema))
    return tuple(fields)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
