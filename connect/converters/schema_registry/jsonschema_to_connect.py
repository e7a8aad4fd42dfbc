"""JSON Schema -> Connect schema, the mapping of Confluent's `JsonSchemaData.toConnectSchema`: `boolean`,
`integer` and `number` (by `connect.type`, else int64 / float64), `string` (bytes with
`connect.type: bytes`, an enum's values as parameters), `array` (a map with `connect.type: map`),
`object` (a map with `connect.type: map`, else a struct whose fields follow `connect.index`), `oneOf` /
`anyOf` (null and one type: that type, optional; otherwise a struct `io.confluent.connect.json.OneOf`),
local `$ref`s, `title` as the name, `description` as the doc. Pure functions, any thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from connect.api.data import DECIMAL_NAME, Field, Schema, SchemaType
from connect.api.errors import DataError
from connect.converters.schema_registry.jsonschema_from_connect import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    JSON_TYPE_ENUM,
    JSON_TYPE_ENUM_PREFIX,
    JSON_TYPE_ONE_OF,
    KEY_FIELD,
    VALUE_FIELD,
)

_CONNECT_NUMBERS = {
    "int8": SchemaType.INT8,
    "int16": SchemaType.INT16,
    "int32": SchemaType.INT32,
    "int64": SchemaType.INT64,
    "float32": SchemaType.FLOAT32,
    "float64": SchemaType.FLOAT64,
    "bytes": SchemaType.BYTES,
}

DefaultReader = Callable[[Schema, Any], Any]
"""(schema, the JSON default) -> the Connect default."""


def connect_schema_of(root: Any, default_from_json: DefaultReader, version: int | None = None) -> Schema:
    """The Connect schema of a JSON Schema document; `version`: the registry's version of it."""
    return _ToConnect(root, default_from_json).convert(root, version=version)


class _ToConnect:
    def __init__(self, root: Any, default_from_json: DefaultReader) -> None:
        self.root = root
        self.default_from_json = default_from_json
        self.resolving: set[str] = set()

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#"):
                raise DataError(f"Only local $ref are supported, not {ref!r}")
            if ref in self.resolving:
                raise DataError(f"Recursive JSON schemas are not supported by this converter: {ref}")
            target: Any = self.root
            for part in ref[1:].split("/"):
                if part:
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def convert(self, node: Any, *, version: int | None = None, force_optional: bool = False) -> Schema:
        if node is True or node == {}:
            raise DataError("A JSON schema that allows any value has no Connect schema")
        node = self._resolve(node)
        if not isinstance(node, dict):
            raise DataError(f"Unsupported JSON schema {node!r}")
        for combinator in ("oneOf", "anyOf"):
            if combinator in node:
                return self._one_of([self._resolve(b) for b in node[combinator]], node, version, force_optional)
        if "allOf" in node:
            raise DataError("allOf JSON schemas are not supported by this converter")
        kind = node.get("type")
        if isinstance(kind, list):
            branches = [{**node, "type": k} for k in kind]
            return self._one_of(branches, {}, version, force_optional)
        schema = self._typed(node, kind)
        return self._finish(node, schema, version, force_optional)

    def _typed(self, node: dict[str, Any], kind: Any) -> Schema:
        connect_type = node.get(CONNECT_TYPE_PROP)
        if "enum" in node and kind in (None, "string"):
            params = {JSON_TYPE_ENUM: ""}  # JSON enums have no name
            params.update({JSON_TYPE_ENUM_PREFIX + str(v): str(v) for v in node["enum"]})
            return Schema(SchemaType.STRING, parameters=params)
        if kind == "boolean":
            return Schema(SchemaType.BOOLEAN)
        if kind in ("integer", "number"):
            if connect_type is None:
                return Schema(SchemaType.INT64 if kind == "integer" else SchemaType.FLOAT64)
            if connect_type not in _CONNECT_NUMBERS:
                raise DataError(f"Unsupported connect.type {connect_type}")
            return Schema(_CONNECT_NUMBERS[connect_type])
        if kind == "string":
            return Schema(SchemaType.BYTES if connect_type == "bytes" else SchemaType.STRING)
        if kind == "array":
            items = node.get("items")
            if items is None:
                raise DataError("Array schema did not specify the items type")
            resolved = self._resolve(items)
            if connect_type == "map" and isinstance(resolved, dict) and resolved.get("type") == "object":
                properties = resolved.get("properties", {})
                return Schema(
                    SchemaType.MAP,
                    key_schema=self.convert(properties[KEY_FIELD]),
                    value_schema=self.convert(properties[VALUE_FIELD]),
                )
            return Schema(SchemaType.ARRAY, value_schema=self.convert(items))
        if kind == "object":
            if connect_type == "map":
                values = node.get("additionalProperties")
                if not isinstance(values, dict):
                    raise DataError("A map's JSON schema needs additionalProperties")
                return Schema(SchemaType.MAP, key_schema=Schema(SchemaType.STRING), value_schema=self.convert(values))
            return self._struct(node)
        if kind == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        raise DataError(f"Unsupported JSON schema type {kind!r}")

    def _struct(self, node: dict[str, Any]) -> Schema:
        properties: dict[str, Any] = node.get("properties", {})
        # Fields in connect.index order; properties without one keep their place after those with one.
        entries = []
        for position, (name, sub) in enumerate(properties.items()):
            index = sub.get(CONNECT_INDEX_PROP) if isinstance(sub, dict) else None
            entries.append((index if isinstance(index, int) else position, position, name, sub))
        entries.sort(key=lambda entry: (entry[0], entry[1]))
        fields = tuple(Field(name, i, self.convert(sub)) for i, (_, _, name, sub) in enumerate(entries))
        return Schema(SchemaType.STRUCT, fields=fields)

    def _one_of(self, branches: list[Any], node: dict[str, Any], version: int | None, force_optional: bool) -> Schema:
        non_null = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(branches) == 2 and len(non_null) == 1:
            return self.convert(non_null[0], version=version, force_optional=True)
        fields = tuple(
            Field(f"{JSON_TYPE_ONE_OF}.field.{i}", i, self.convert(b, force_optional=True))
            for i, b in enumerate(non_null)
        )
        optional = force_optional or len(non_null) < len(branches)
        schema = Schema(SchemaType.STRUCT, optional=optional, name=JSON_TYPE_ONE_OF, fields=fields)
        return self._finish({k: v for k, v in node.items() if k != "title"}, schema, version, force_optional)

    def _finish(self, node: dict[str, Any], schema: Schema, version: int | None, force_optional: bool) -> Schema:
        name = node.get("title", schema.name)
        connect_version = node.get(CONNECT_VERSION_PROP)
        params = dict(schema.parameters or {})
        extra = node.get(CONNECT_PARAMETERS_PROP)
        if isinstance(extra, dict):
            params.update({str(k): str(v) for k, v in extra.items()})
        schema = dataclasses.replace(
            schema,
            name=name if isinstance(name, str) else schema.name,
            version=connect_version if isinstance(connect_version, int) else version,
            doc=node.get("description") if isinstance(node.get("description"), str) else None,
            parameters=params or None,
            optional=schema.optional or force_optional,
        )
        if schema.type is SchemaType.BYTES and schema.name == DECIMAL_NAME and "scale" not in params:
            schema = dataclasses.replace(schema, parameters={**params, "scale": "0"})
        if node.get("default") is not None:
            schema = dataclasses.replace(schema, default=self.default_from_json(schema, node["default"]))
        return schema
