"""Avro schema -> Connect schema, the mapping of Confluent's `AvroData.toConnectSchema`, together with
what turns fastavro's decoded values into Connect values of that schema (`AvroReadPlan`).

A union of null and one type is that type, optional; any other union is a struct named
`io.confluent.connect.avro.Union` with one optional field per branch; enums are strings with the
symbols as parameters; arrays of `MapEntry` records are maps; `connect.*` properties restore the
Connect name, version, doc, parameters and default. fastavro decodes the four Avro logical types that
Connect has (decimal, date, time-millis, timestamp-millis) into `Decimal`, `date`, `time` and UTC
`datetime` itself; the others are taken out of the schema fastavro reads with (`reader_view`), so
their values arrive as the primitive Connect maps them to. Recursive Avro schemas are refused: a
Connect schema here cannot refer to itself. Pure functions, any thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from connect.api.data import DATE_SCHEMA, DECIMAL_NAME, TIME_SCHEMA, TIMESTAMP_SCHEMA, Field, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connect.converters.logical import days_to_date, decimal_from_bytes, millis_to_time
from connect.converters.schema_registry import avro_names as n
from connect.converters.schema_registry.avro_read_values import (
    Branch,
    Convert,
    ToColumns,
    columns_of,
    each,
    each_value,
    entries,
    struct_of,
    union_of,
)

_MISSING: Any = object()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SIMPLE = {
    "boolean": SchemaType.BOOLEAN,
    "int": SchemaType.INT32,
    "long": SchemaType.INT64,
    "float": SchemaType.FLOAT32,
    "double": SchemaType.FLOAT64,
    "bytes": SchemaType.BYTES,
    "fixed": SchemaType.BYTES,
    "string": SchemaType.STRING,
}


@dataclass(frozen=True)
class AvroReadPlan:
    """How to read values written with one Avro schema: the Connect schema, the value conversion, and
    the schema and options fastavro decodes with."""

    schema: Schema
    convert: Convert | None
    reader_view: Any
    record_names_in_unions: bool
    to_columns: ToColumns | None = None
    """For a record schema, its decoded records as columns (`to_connect_columns_batch`)."""


def read_plan(avro: Any, options: n.AvroDataOptions, version: int | None = None) -> AvroReadPlan:
    """The plan for values written with `avro` (parsed JSON); `version`: the registry's version of the
    schema, the Connect schema's version unless the schema carries `connect.version`."""
    converter = _ToConnect(options)
    schema, convert = converter.convert(avro, None, version=version)
    top = converter.top_record
    to_columns = None if top is None else columns_of(*top)
    return AvroReadPlan(schema, convert, reader_view(avro), converter.record_names_in_unions, to_columns)


def reader_view(avro: Any) -> Any:
    """`avro` without the logical types Connect has no type for, so fastavro reads their primitives."""
    if isinstance(avro, list):
        return [reader_view(branch) for branch in avro]
    if not isinstance(avro, dict):
        return avro
    view = dict(avro)
    if view.get(n.LOGICAL_TYPE_PROP) not in n.CONNECT_LOGICAL_TYPES or not _logical_fits(view):
        view.pop(n.LOGICAL_TYPE_PROP, None)
    kind = view.get("type")
    if isinstance(kind, dict | list):
        view["type"] = reader_view(kind)
    elif kind == "record":
        view["fields"] = [{**f, "type": reader_view(f["type"])} for f in view.get("fields", [])]
    elif kind == "array":
        view["items"] = reader_view(view["items"])
    elif kind == "map":
        view["values"] = reader_view(view["values"])
    return view


def _logical_fits(avro: Mapping[str, Any]) -> bool:
    """Whether a logical type sits on the primitive Connect expects it on (AvroData ignores it otherwise)."""
    logical, kind = avro.get(n.LOGICAL_TYPE_PROP), avro.get("type")
    if logical == n.LOGICAL_DECIMAL:
        return kind in ("bytes", "fixed")
    if logical in (n.LOGICAL_DATE, n.LOGICAL_TIME_MILLIS):
        return kind == "int"
    return kind == "long"


class _ToConnect:
    def __init__(self, options: n.AvroDataOptions) -> None:
        self.options = options
        self.named: dict[str, tuple[dict[str, Any], str | None]] = {}  # full name -> (definition, namespace)
        self.converting: set[str] = set()
        self.record_names_in_unions = False
        self.record_converts: dict[int, list[tuple[str, Convert]]] = {}
        """Each record's field conversions while it is being converted, by id of its Avro definition."""
        self.top_record: tuple[Schema, list[tuple[str, Convert]]] | None = None
        """The schema being read, when it is a record: its Connect schema and field conversions."""
        self._depth = 0

    # ------------------------------------------------------------------------------------------ names

    def _full_name(self, name: str, namespace: str | None) -> str:
        return name if "." in name or not namespace else f"{namespace}.{name}"

    def _define(self, avro: dict[str, Any], namespace: str | None) -> tuple[str, str | None]:
        """Registers a named type; returns its full name and the namespace its own fields resolve in."""
        explicit = avro.get("namespace")
        name = str(avro["name"])
        if "." in name:
            full = name
        else:
            ns = explicit if explicit is not None else namespace
            full = f"{ns}.{name}" if ns else name
        inner = n.split_name(full)[0]
        self.named.setdefault(full, (avro, inner))
        return full, inner

    def resolve(self, avro: Any, namespace: str | None) -> tuple[Any, str | None]:
        """A type reference (a name) as its definition and namespace; anything else as it is."""
        if isinstance(avro, str) and avro not in n.PRIMITIVES:
            full = self._full_name(avro, namespace)
            found = self.named.get(full) or self.named.get(avro)
            if found is None:
                raise DataError(f"Avro schema refers to an undefined type {avro}")
            return found
        if isinstance(avro, dict) and isinstance(avro.get("type"), str | dict | list) and _is_wrapper(avro):
            return self.resolve(avro["type"], namespace)
        return avro, namespace

    # ------------------------------------------------------------------------------------ conversion

    def convert(
        self,
        avro: Any,
        namespace: str | None,
        *,
        force_optional: bool = False,
        field_default: Any = _MISSING,
        version: int | None = None,
    ) -> tuple[Schema, Convert | None]:
        avro, namespace = self.resolve(avro, namespace)
        if isinstance(avro, list):
            return self._union(avro, namespace, force_optional)
        if isinstance(avro, str):
            avro = {"type": avro}
        kind = avro["type"]
        reference = None
        if kind in ("record", "enum", "fixed"):
            reference, inner = self._define(avro, namespace)
            if reference in self.converting:
                raise DataError(f"Recursive Avro schemas are not supported by this converter: {reference}")
            if kind == "record":
                namespace = inner
        if reference is not None:
            self.converting.add(reference)
        self._depth += 1
        try:
            schema, convert = self._typed(avro, kind, namespace, reference)
        finally:
            self._depth -= 1
            if reference is not None:
                self.converting.discard(reference)
        schema, convert = self._finish(avro, kind, reference, schema, convert, force_optional, field_default, version)
        if kind == "record":
            # Bound to the finished schema (name, version, parameters), which the Structs must carry.
            converts = self.record_converts.pop(id(avro))
            convert = struct_of(schema, converts)
            if self._depth == 0:
                self.top_record = (schema, converts)
        return schema, convert

    def _typed(
        self, avro: dict[str, Any], kind: str, namespace: str | None, full_name: str | None
    ) -> tuple[Schema, Convert | None]:
        logical = avro.get(n.LOGICAL_TYPE_PROP)
        if kind in ("bytes", "fixed") and logical == n.LOGICAL_DECIMAL:
            scale = avro.get(n.DECIMAL_SCALE_PROP)
            if not isinstance(scale, int):
                raise DataError("scale must be specified and must be a number.")
            params = {"scale": str(scale)}
            precision = avro.get(n.DECIMAL_PRECISION_PROP)
            if precision is not None and precision != n.CONNECT_DECIMAL_PRECISION_DEFAULT:
                params[n.CONNECT_DECIMAL_PRECISION_PROP] = str(precision)
            return Schema(SchemaType.BYTES, name=DECIMAL_NAME, version=1, parameters=params), None
        if kind == "int":
            connect_type = avro.get(n.CONNECT_TYPE_PROP)
            if logical == n.LOGICAL_DATE:
                return DATE_SCHEMA, None
            if logical == n.LOGICAL_TIME_MILLIS:
                return TIME_SCHEMA, None
            if logical is None and connect_type is not None:
                if connect_type not in ("int8", "int16"):
                    raise DataError("Connect type annotation for Avro int field is null")
                return Schema(SchemaType(connect_type)), None
            return Schema(SchemaType.INT32), None
        if kind == "long" and logical == n.LOGICAL_TIMESTAMP_MILLIS:
            return TIMESTAMP_SCHEMA, None
        if kind in _SIMPLE:
            return Schema(_SIMPLE[kind]), None
        if kind == "array":
            return self._array(avro, namespace)
        if kind == "map":
            values, convert = self.convert(avro["values"], namespace)
            schema = Schema(SchemaType.MAP, key_schema=Schema(SchemaType.STRING), value_schema=values)
            return schema, None if convert is None else each_value(convert)
        if kind == "record":
            return self._record(avro, namespace)
        if kind == "enum":
            assert full_name is not None
            return self._enum(avro, full_name), None
        if kind == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        raise DataError(f"Couldn't translate unsupported schema type {kind}.")

    def _array(self, avro: dict[str, Any], namespace: str | None) -> tuple[Schema, Convert | None]:
        items, items_namespace = self.resolve(avro["items"], namespace)
        if isinstance(items, dict) and items.get("type") == "record" and self._is_map_entry(items, items_namespace):
            fields = {f["name"]: f for f in items.get("fields", [])}
            if len(fields) != 2 or n.KEY_FIELD not in fields or n.VALUE_FIELD not in fields:
                raise DataError(
                    "Found map encoded as array of key-value pairs, but array elements do not match the "
                    "expected format."
                )
            entry_namespace = self._define(items, items_namespace)[1]
            keys, key_convert = self.convert(fields[n.KEY_FIELD]["type"], entry_namespace)
            values, value_convert = self.convert(fields[n.VALUE_FIELD]["type"], entry_namespace)
            schema = Schema(SchemaType.MAP, key_schema=keys, value_schema=values)
            return schema, entries(key_convert, value_convert)
        element, convert = self.convert(avro["items"], namespace)
        return Schema(SchemaType.ARRAY, value_schema=element), None if convert is None else each(convert)

    def _is_map_entry(self, record: dict[str, Any], namespace: str | None) -> bool:
        full = self._full_name(str(record["name"]), record.get("namespace", namespace))
        return full == f"{n.NAMESPACE}.{n.MAP_ENTRY_TYPE_NAME}" or (
            record.get(n.CONNECT_INTERNAL_TYPE_NAME) == n.MAP_ENTRY_TYPE_NAME
        )

    def _record(self, avro: dict[str, Any], namespace: str | None) -> tuple[Schema, Convert | None]:
        params: dict[str, str] = {}
        meta = self.options.connect_meta_data
        if meta and avro.get("doc") is not None:
            params[n.AVRO_RECORD_DOC_PROP] = str(avro["doc"])
        fields: list[Field] = []
        converts: list[tuple[str, Convert]] = []
        for index, avro_field in enumerate(avro.get("fields", [])):
            name = str(avro_field["name"])
            if meta and avro_field.get("doc") is not None:
                params[n.AVRO_FIELD_DOC_PREFIX_PROP + name] = str(avro_field["doc"])
            default = avro_field.get("default", _MISSING)
            schema, convert = self.convert(avro_field["type"], namespace, field_default=default)
            fields.append(Field(name, index, schema))
            if convert is not None:
                converts.append((name, convert))
        self.record_converts[id(avro)] = converts
        return Schema(SchemaType.STRUCT, parameters=params or None, fields=tuple(fields)), None

    def _enum(self, avro: dict[str, Any], full_name: str) -> Schema:
        params: dict[str, str] = {}
        name = str(avro["name"]).rpartition(".")[2]
        if self.options.connect_meta_data:
            if avro.get("doc") is not None:
                params[n.AVRO_ENUM_DOC_PREFIX_PROP + name] = str(avro["doc"])
            if avro.get("default") is not None:
                params[n.AVRO_ENUM_DEFAULT_PREFIX_PROP + name] = str(avro["default"])
        params[n.AVRO_TYPE_ENUM] = full_name
        for symbol in avro.get("symbols", []):
            params[f"{n.AVRO_TYPE_ENUM}.{symbol}"] = str(symbol)
        return Schema(SchemaType.STRING, parameters=params)

    def _union(self, avro: list[Any], namespace: str | None, force_optional: bool) -> tuple[Schema, Convert | None]:
        if len(avro) == 2 and "null" in avro:
            member = avro[1] if avro[0] == "null" else avro[0]
            schema, convert = self.convert(member, namespace, force_optional=True)
            return schema, convert
        fields: list[Field] = []
        branches: list[Branch] = []
        optional = force_optional
        for member in avro:
            resolved, member_namespace = self.resolve(member, namespace)
            kind = resolved if isinstance(resolved, str) else resolved["type"]
            if kind == "null":
                optional = True
                continue
            schema, convert = self.convert(member, namespace, force_optional=True)
            full = None
            if kind in ("record", "enum", "fixed"):
                full = self._define(resolved, member_namespace)[0]
            name = self._member_name(kind, full)
            if any(f.name == name for f in fields):
                raise DataError("Multiple union schemas map to the Connect union field name")
            fields.append(Field(name, len(fields), schema))
            symbols = frozenset(resolved.get("symbols", ())) if kind == "enum" else frozenset()
            branches.append(Branch(name, kind, full, convert, symbols))
        if sum(1 for b in branches if b.kind == "record") > 1:
            self.record_names_in_unions = True
        schema = Schema(SchemaType.STRUCT, optional=optional, name=n.AVRO_TYPE_UNION, fields=tuple(fields))
        return schema, union_of(schema, branches)

    def _member_name(self, kind: str, full: str | None) -> str:
        if kind in ("record", "enum") and full is not None:
            return full if self.options.enhanced_schema_support else full.rpartition(".")[2]
        return "bytes" if kind == "fixed" else kind

    # --------------------------------------------------------------------------------------- metadata

    def _finish(
        self,
        avro: dict[str, Any],
        kind: str,
        full_name: str | None,
        schema: Schema,
        convert: Convert | None,
        force_optional: bool,
        field_default: Any,
        version: int | None,
    ) -> tuple[Schema, Convert | None]:
        meta = self.options.connect_meta_data
        doc = schema.doc
        if meta and avro.get(n.CONNECT_DOC_PROP) is not None:
            doc = str(avro[n.CONNECT_DOC_PROP])
        connect_version = avro.get(n.CONNECT_VERSION_PROP)
        if connect_version is not None and not isinstance(connect_version, int):
            raise DataError(f"Invalid Connect version found: {connect_version}")
        schema_version = schema.version
        if schema_version is None:
            schema_version = connect_version if connect_version is not None else version
        params = dict(schema.parameters or {})
        connect_params = avro.get(n.CONNECT_PARAMETERS_PROP)
        if meta and connect_params is not None:
            if not isinstance(connect_params, dict):
                raise DataError(f"Expected JSON object for schema parameters but found: {connect_params}")
            for key, value in connect_params.items():
                if not isinstance(value, str):
                    raise DataError(f"Expected schema parameter values to be strings but found: {value}")
                params[key] = value
        for key, value in avro.items():
            if key.startswith(n.AVRO_PROP_PREFIX):
                params[key] = value if isinstance(value, str) else str(value)
        connect_default = avro.get(n.CONNECT_DEFAULT_VALUE_PROP, _MISSING)
        default_json = field_default
        if field_default is _MISSING:
            default_json = connect_default
        elif connect_default is _MISSING:
            params[n.AVRO_FIELD_DEFAULT_FLAG_PROP] = "true"
        name = schema.name
        connect_name = avro.get(n.CONNECT_NAME_PROP)
        if connect_name is not None:
            if not isinstance(connect_name, str):
                raise DataError(f"Invalid schema name: {connect_name}")
            name = connect_name
        elif kind in ("record", "enum") and full_name is not None:
            name = full_name
        if name == n.DEFAULT_SCHEMA_FULL_NAME:
            name = None
        schema = dataclasses.replace(
            schema,
            optional=schema.optional or force_optional,
            name=name,
            version=schema_version,
            doc=doc,
            parameters=params or None,
        )
        if default_json is not _MISSING and default_json is not None:
            default = self.default_from_json(schema, avro, default_json)
            schema = dataclasses.replace(schema, default=default)
        return schema, convert

    def default_from_json(self, schema: Schema, avro: Any, value: Any, namespace: str | None = None) -> Any:
        """A default from Avro's JSON as a Connect value of `schema` (AvroData.defaultValueFromAvro)."""
        if value is None:
            return None
        avro, namespace = self.resolve(avro, namespace)
        if isinstance(avro, list):
            first, first_namespace = self.resolve(avro[0], namespace)
            if first == "null" or (isinstance(first, dict) and first.get("type") == "null"):
                return None
            if schema.name == n.AVRO_TYPE_UNION:
                kind = first if isinstance(first, str) else first["type"]
                full = self._define(first, first_namespace)[0] if kind in ("record", "enum", "fixed") else None
                member = schema.field(self._member_name(kind, full))
                if member is None:
                    return None
                return Struct(schema, {member.name: self.default_from_json(member.schema, first, value, namespace)})
            return self.default_from_json(schema, first, value, first_namespace)
        kind = avro if isinstance(avro, str) else avro["type"]
        result: Any
        if kind in ("int", "long"):
            result = int(value)
        elif kind in ("float", "double"):
            result = float(value)
        elif kind == "boolean":
            result = bool(value)
        elif kind in ("string", "enum"):
            result = str(value)
        elif kind in ("bytes", "fixed"):
            result = str(value).encode("iso-8859-1")
        elif kind == "array" and schema.type is SchemaType.ARRAY:
            assert schema.value_schema is not None
            result = [self.default_from_json(schema.value_schema, avro["items"], v, namespace) for v in value]
        elif kind == "array" and schema.type is SchemaType.MAP:
            keys, values = schema.key_schema, schema.value_schema
            assert keys is not None and values is not None
            result = {}
            for entry in value:
                key, item = (entry["key"], entry["value"]) if isinstance(entry, dict) else entry
                result[self._plain_default(keys, key)] = self._plain_default(values, item)
        elif kind == "map":
            assert schema.value_schema is not None
            values_avro = avro["values"]
            result = {
                k: self.default_from_json(schema.value_schema, values_avro, v, namespace) for k, v in value.items()
            }
        elif kind == "record":
            inner = avro.get("namespace", namespace)
            result = Struct(schema)
            for avro_field in avro.get("fields", []):
                field = schema.field(avro_field["name"])
                if field is not None:
                    item = value.get(field.name)
                    result.put(field.name, self.default_from_json(field.schema, avro_field["type"], item, inner))
        else:
            return None
        return _logical_from_primitive(schema, result)

    def _plain_default(self, schema: Schema, value: Any) -> Any:
        if value is None:
            return None
        if schema.type is SchemaType.BYTES and isinstance(value, str):
            value = value.encode("iso-8859-1")
        return _logical_from_primitive(schema, value)


def _is_wrapper(avro: dict[str, Any]) -> bool:
    """`{"type": <a name, a union or a schema>}`: a schema wrapped in an object (Avro allows it)."""
    kind = avro["type"]
    return isinstance(kind, dict | list) or (
        isinstance(kind, str)
        and kind not in n.PRIMITIVES
        and kind not in ("record", "enum", "fixed", "array", "map", "error")
    )


def _logical_from_primitive(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name == DECIMAL_NAME and isinstance(value, bytes):
        return decimal_from_bytes(value, int((schema.parameters or {}).get("scale", "0")))
    if name == DATE_SCHEMA.name and isinstance(value, int):
        return days_to_date(value)
    if name == TIME_SCHEMA.name and isinstance(value, int):
        return millis_to_time(value)
    if name == TIMESTAMP_SCHEMA.name and isinstance(value, int):
        return _EPOCH + timedelta(milliseconds=value)
    return value
