"""Connect schema -> Avro schema (as JSON-ready Python values), the mapping of Confluent's
`AvroData.fromConnectSchema`: INT8/INT16 as `int` with `connect.type`, optional schemas as unions with
null (null first, unless the schema has a default), maps with non-string keys as arrays of
`io.confluent.connect.avro.MapEntry` records, the Connect logical types as Avro logical types, and
`connect.name` / `connect.version` / `connect.doc` / `connect.parameters` / `connect.default` when
`connect.meta.data` is on. Pure functions, any thread.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Mapping
from typing import Any

from connect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    DECIMAL_SCALE_PARAM,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    SchemaType,
    Struct,
)
from connect.api.errors import DataError
from connect.converters.logical import date_to_days, decimal_to_bytes, time_to_millis, timestamp_to_millis
from connect.converters.schema_registry import avro_names as n

_PRIMITIVE_TYPES = {
    SchemaType.INT8: "int",
    SchemaType.INT16: "int",
    SchemaType.INT32: "int",
    SchemaType.INT64: "long",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.BOOLEAN: "boolean",
    SchemaType.STRING: "string",
    SchemaType.BYTES: "bytes",
}


def avro_schema_of(schema: Schema, options: n.AvroDataOptions) -> Any:
    """The Avro schema of a Connect schema: a type name, or a dict / list as Avro's JSON has them."""
    return _FromConnect(options).convert(schema)


def full_name_of(avro: Any) -> str:
    """The full name of a named Avro schema, else its type name (a union: its first non-null branch's)."""
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        return full_name_of(branches[0]) if branches else "null"
    if isinstance(avro, dict):
        if "name" in avro:
            namespace = avro.get("namespace")
            return f"{namespace}.{avro['name']}" if namespace else str(avro["name"])
        return str(avro["type"])
    return str(avro)


class _FromConnect:
    """One conversion: remembers the named Avro types defined so far, as Avro allows each name once."""

    def __init__(self, options: n.AvroDataOptions) -> None:
        self.options = options
        self.defined: dict[Schema, str] = {}  # non-optional Connect schema -> the full name of its record
        self.default_names = 0

    def convert(self, schema: Schema, *, ignore_optional: bool = False) -> Any:
        if schema.type is SchemaType.STRUCT and schema.name != n.AVRO_TYPE_UNION:
            defined = self.defined.get(_required(schema) if schema.optional else schema)
            if defined is not None:  # a record defined earlier in this schema: referred to by name
                if not schema.optional or ignore_optional:
                    return defined
                return [defined, "null"] if schema.default is not None else ["null", defined]
        base = self._base(schema)
        if isinstance(base, list):  # a Connect union struct: no properties can go on a union
            return base
        if not isinstance(base, dict):
            base = {"type": base}
        self._annotate(schema, base)
        result: Any = _compact(base)
        if schema.optional and not ignore_optional:
            result = [result, "null"] if schema.default is not None else ["null", result]
        return result

    def _base(self, schema: Schema) -> Any:
        kind = schema.type
        if kind is SchemaType.STRUCT:
            return self._struct(schema)
        if kind is SchemaType.ARRAY:
            assert schema.value_schema is not None
            return {"type": "array", "items": self.convert(schema.value_schema)}
        if kind is SchemaType.MAP:
            return self._map(schema)
        if kind is SchemaType.STRING and self.options.enhanced_schema_support:
            params = schema.parameters or {}
            if n.AVRO_TYPE_ENUM in params:
                return self._enum(schema, params)
        base: dict[str, Any] = {"type": _PRIMITIVE_TYPES[kind]}
        if kind in (SchemaType.INT8, SchemaType.INT16) and self.options.connect_meta_data:
            base[n.CONNECT_TYPE_PROP] = kind.value
        return base

    def _struct(self, schema: Schema) -> Any:
        if schema.name == n.AVRO_TYPE_UNION:
            branches: list[Any] = ["null"] if schema.optional else []
            branches.extend(self.convert(f.schema, ignore_optional=True) for f in schema.fields)
            return branches
        namespace, name = self._record_name(schema)
        params = schema.parameters or {}
        record: dict[str, Any] = {"type": "record", "name": name}
        if namespace:
            record["namespace"] = namespace
        if params.get(n.AVRO_RECORD_DOC_PROP) is not None:
            record["doc"] = params[n.AVRO_RECORD_DOC_PROP]
        full_name = f"{namespace}.{name}" if namespace else name
        # Defined before its fields are converted, so a field of the same schema refers to it by name.
        self.defined[_required(schema)] = full_name
        record["fields"] = [
            self._field(f.name, f.schema, params.get(n.AVRO_FIELD_DOC_PREFIX_PROP + f.name)) for f in schema.fields
        ]
        return record

    def _record_name(self, schema: Schema) -> tuple[str | None, str]:
        if schema.name is not None:
            return n.split_name(schema.name)
        # Every unnamed struct is a record named ConnectDefault; Avro wants the names apart.
        self.default_names += 1
        suffix = "" if self.default_names == 1 else str(self.default_names)
        return n.NAMESPACE, n.DEFAULT_SCHEMA_NAME + suffix

    def _field(self, name: str, schema: Schema, doc: str | None) -> dict[str, Any]:
        field: dict[str, Any] = {"name": name, "type": self.convert(schema)}
        if doc is not None:
            field["doc"] = doc
        if schema.default is not None:
            field["default"] = default_to_json(schema, schema.default)
        elif schema.optional:
            field["default"] = None
        return field

    def _map(self, schema: Schema) -> dict[str, Any]:
        keys, values = schema.key_schema, schema.value_schema
        assert keys is not None and values is not None
        if keys.type is SchemaType.STRING and not keys.optional:
            return {"type": "map", "values": self.convert(values)}
        entry: dict[str, Any] = {"type": "record"}
        if schema.name is None:
            entry["name"], entry["namespace"] = n.MAP_ENTRY_TYPE_NAME, n.NAMESPACE
        else:
            namespace, name = n.split_name(schema.name)
            entry["name"] = name
            if namespace:
                entry["namespace"] = namespace
            entry[n.CONNECT_INTERNAL_TYPE_NAME] = n.MAP_ENTRY_TYPE_NAME
        entry["fields"] = [self._field(n.KEY_FIELD, keys, None), self._field(n.VALUE_FIELD, values, None)]
        return {"type": "array", "items": entry}

    def _enum(self, schema: Schema, params: Mapping[str, str]) -> dict[str, Any]:
        namespace, name = n.split_name(params[n.AVRO_TYPE_ENUM])
        enum: dict[str, Any] = {"type": "enum", "name": name}
        if namespace:
            enum["namespace"] = namespace
        if params.get(n.AVRO_ENUM_DOC_PREFIX_PROP + name) is not None:
            enum["doc"] = params[n.AVRO_ENUM_DOC_PREFIX_PROP + name]
        prefix = n.AVRO_TYPE_ENUM + "."
        enum["symbols"] = [v for k, v in params.items() if k.startswith(prefix)]
        if params.get(n.AVRO_ENUM_DEFAULT_PREFIX_PROP + name) is not None:
            enum["default"] = params[n.AVRO_ENUM_DEFAULT_PREFIX_PROP + name]
        return enum

    def _annotate(self, schema: Schema, base: dict[str, Any]) -> None:
        """AvroData's properties on a non-union schema, in its order."""
        params = schema.parameters or {}
        is_decimal = schema.name is not None and schema.name.lower() == DECIMAL_NAME.lower()
        if is_decimal:
            base[n.DECIMAL_SCALE_PROP] = int(params.get(DECIMAL_SCALE_PARAM, "0"))
            base[n.DECIMAL_PRECISION_PROP] = int(
                params.get(n.CONNECT_DECIMAL_PRECISION_PROP, n.CONNECT_DECIMAL_PRECISION_DEFAULT)
            )
        if self.options.connect_meta_data:
            if schema.doc is not None:
                base[n.CONNECT_DOC_PROP] = schema.doc
            if schema.version is not None:
                base[n.CONNECT_VERSION_PROP] = schema.version
            shown = {k: v for k, v in params.items() if k != n.AVRO_FIELD_DEFAULT_FLAG_PROP}
            if shown:
                base[n.CONNECT_PARAMETERS_PROP] = shown
            if schema.default is not None and n.AVRO_FIELD_DEFAULT_FLAG_PROP not in params:
                base[n.CONNECT_DEFAULT_VALUE_PROP] = default_to_json(schema, schema.default)
            if schema.name is not None:
                base[n.CONNECT_NAME_PROP] = schema.name
        logical = _logical_type(schema.name)
        if logical is not None:
            base[n.LOGICAL_TYPE_PROP] = logical
        for key, value in params.items():
            if key.startswith(n.AVRO_PROP_PREFIX):
                base[key] = value


def _logical_type(name: str | None) -> str | None:
    if name is None:
        return None
    return {
        DECIMAL_NAME.lower(): n.LOGICAL_DECIMAL,
        DATE_NAME.lower(): n.LOGICAL_DATE,
        TIME_NAME.lower(): n.LOGICAL_TIME_MILLIS,
        TIMESTAMP_NAME.lower(): n.LOGICAL_TIMESTAMP_MILLIS,
    }.get(name.lower())


def _compact(base: dict[str, Any]) -> Any:
    """A bare primitive's dict as its type name, as Avro writes `"int"` rather than `{"type": "int"}`."""
    return base["type"] if len(base) == 1 and base["type"] in n.PRIMITIVES else base


def _required(schema: Schema) -> Schema:
    return dataclasses.replace(schema, optional=False)


def default_to_json(schema: Schema, value: Any) -> Any:
    """A Connect default as Avro's JSON for defaults: bytes as ISO-8859-1 text, logical values encoded."""
    if value is None:
        return None
    name = schema.name
    if name == DECIMAL_NAME:
        value = decimal_to_bytes(value, int((schema.parameters or {}).get(DECIMAL_SCALE_PARAM, "0")))
    elif name == DATE_NAME:
        return date_to_days(value)
    elif name == TIME_NAME:
        return time_to_millis(value)
    elif name == TIMESTAMP_NAME:
        return timestamp_to_millis(value)
    kind = schema.type
    if kind is SchemaType.BYTES:
        if isinstance(value, str):  # a default given as base64 text, as in Connect's JSON schemas
            value = base64.b64decode(value)
        return bytes(value).decode("iso-8859-1")
    if kind is SchemaType.ARRAY:
        assert schema.value_schema is not None
        return [default_to_json(schema.value_schema, v) for v in value]
    if kind is SchemaType.MAP:
        keys, values = schema.key_schema, schema.value_schema
        assert keys is not None and values is not None
        if keys.type is SchemaType.STRING and not keys.optional:
            return {k: default_to_json(values, v) for k, v in value.items()}
        return [[default_to_json(keys, k), default_to_json(values, v)] for k, v in value.items()]
    if kind is SchemaType.STRUCT:
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type used for default value of STRUCT field: {type(value).__name__}")
        return {f.name: default_to_json(f.schema, value.get(f.name)) for f in schema.fields}
    if kind in (SchemaType.FLOAT32, SchemaType.FLOAT64):
        return float(value)
    return value
