"""Kafka Connect's data model: schemas, structs and the logical types.

Schemas are immutable values (frozen dataclasses), so they can be shared between threads and cached
by converters. `Schema.type` uses Kafka Connect's type names; logical types are primitive schemas
with one of the well-known names below, exactly as in Kafka Connect, so the JSON schema envelope
round-trips with Java workers.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

from connect.api.errors import DataError


class SchemaType(enum.Enum):
    """Kafka Connect's schema types; the values are the names used in the JSON schema envelope."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        return self not in (SchemaType.ARRAY, SchemaType.MAP, SchemaType.STRUCT)


DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal"
DECIMAL_SCALE_PARAM = "scale"
DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME = "org.apache.kafka.connect.data.Timestamp"


@dataclass(frozen=True, slots=True)
class Field:
    """A named, ordered field of a STRUCT schema."""

    name: str
    index: int
    schema: Schema


@dataclass(frozen=True, slots=True)
class Schema:
    """A Kafka Connect schema. Build with the constructors below or `Schema(...)` directly."""

    type: SchemaType
    optional: bool = False
    default: Any = None
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: Mapping[str, str] | None = None
    fields: tuple[Field, ...] = ()
    key_schema: Schema | None = None
    value_schema: Schema | None = None
    # Field lookup by name is on the hot path of every Struct put/get: index once per schema.
    _fields_by_name: Mapping[str, Field] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_fields_by_name", {f.name: f for f in self.fields})

    def __hash__(self) -> int:
        params = tuple(sorted(self.parameters.items())) if self.parameters else None
        default = self.default if _hashable(self.default) else repr(self.default)
        return hash((self.type, self.optional, default, self.name, self.version, params, self.fields))

    def field(self, name: str) -> Field | None:
        if self.type is not SchemaType.STRUCT:
            raise DataError(f"Cannot look up fields on non-struct type {self.type.name}")
        return self._fields_by_name.get(name)

    def as_optional(self) -> Schema:
        return Schema(
            self.type,
            True,
            self.default,
            self.name,
            self.version,
            self.doc,
            self.parameters,
            self.fields,
            self.key_schema,
            self.value_schema,
        )

    @staticmethod
    def struct(fields: list[tuple[str, Schema]], *, name: str | None = None, optional: bool = False) -> Schema:
        return Schema(
            SchemaType.STRUCT,
            optional=optional,
            name=name,
            fields=tuple(Field(n, i, s) for i, (n, s) in enumerate(fields)),
        )

    @staticmethod
    def array(items: Schema, *, optional: bool = False) -> Schema:
        return Schema(SchemaType.ARRAY, optional=optional, value_schema=items)

    @staticmethod
    def map(keys: Schema, values: Schema, *, optional: bool = False) -> Schema:
        return Schema(SchemaType.MAP, optional=optional, key_schema=keys, value_schema=values)

    @staticmethod
    def decimal(scale: int, *, optional: bool = False) -> Schema:
        return Schema(
            SchemaType.BYTES,
            optional=optional,
            name=DECIMAL_NAME,
            version=1,
            parameters={DECIMAL_SCALE_PARAM: str(scale)},
        )


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# Ready-made schemas, as Kafka Connect's Schema.*_SCHEMA constants.
INT8_SCHEMA = Schema(SchemaType.INT8)
INT16_SCHEMA = Schema(SchemaType.INT16)
INT32_SCHEMA = Schema(SchemaType.INT32)
INT64_SCHEMA = Schema(SchemaType.INT64)
FLOAT32_SCHEMA = Schema(SchemaType.FLOAT32)
FLOAT64_SCHEMA = Schema(SchemaType.FLOAT64)
BOOLEAN_SCHEMA = Schema(SchemaType.BOOLEAN)
STRING_SCHEMA = Schema(SchemaType.STRING)
BYTES_SCHEMA = Schema(SchemaType.BYTES)
OPTIONAL_INT8_SCHEMA = Schema(SchemaType.INT8, optional=True)
OPTIONAL_INT16_SCHEMA = Schema(SchemaType.INT16, optional=True)
OPTIONAL_INT32_SCHEMA = Schema(SchemaType.INT32, optional=True)
OPTIONAL_INT64_SCHEMA = Schema(SchemaType.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA = Schema(SchemaType.FLOAT32, optional=True)
OPTIONAL_FLOAT64_SCHEMA = Schema(SchemaType.FLOAT64, optional=True)
OPTIONAL_BOOLEAN_SCHEMA = Schema(SchemaType.BOOLEAN, optional=True)
OPTIONAL_STRING_SCHEMA = Schema(SchemaType.STRING, optional=True)
OPTIONAL_BYTES_SCHEMA = Schema(SchemaType.BYTES, optional=True)
DATE_SCHEMA = Schema(SchemaType.INT32, name=DATE_NAME, version=1)
TIME_SCHEMA = Schema(SchemaType.INT32, name=TIME_NAME, version=1)
TIMESTAMP_SCHEMA = Schema(SchemaType.INT64, name=TIMESTAMP_NAME, version=1)


class Struct:
    """A value of a STRUCT schema: field values by name, checked against the schema on `put`."""

    __slots__ = ("_values", "schema")

    def __init__(self, schema: Schema, values: Mapping[str, Any] | None = None) -> None:
        if schema.type is not SchemaType.STRUCT:
            raise DataError(f"Struct needs a STRUCT schema, got {schema.type.name}")
        self.schema = schema
        self._values: dict[str, Any] = {}
        for name, value in (values or {}).items():
            self.put(name, value)

    @classmethod
    def unchecked(cls, schema: Schema, values: dict[str, Any]) -> Struct:
        """A Struct holding `values` as given, without checks: for converters and transforms on the hot path.

        The caller guarantees `schema` is a STRUCT schema and every key of `values` is one of its field
        names; `values` is taken over, not copied.
        """
        struct = cls.__new__(cls)
        struct.schema = schema
        struct._values = values
        return struct

    def raw_values(self) -> Mapping[str, Any]:
        """The values as put, by field name; schema defaults not applied. Do not mutate."""
        return self._values

    def put(self, name: str, value: Any) -> Struct:
        if self.schema.field(name) is None:
            raise DataError(f"{name} is not a valid field name")
        self._values[name] = value
        return self

    def get(self, name: str) -> Any:
        f = self.schema.field(name)
        if f is None:
            raise DataError(f"{name} is not a valid field name")
        value = self._values.get(name)
        return f.schema.default if value is None else value

    def validate(self) -> None:
        """Raises DataError when a required field without default has no value."""
        for f in self.schema.fields:
            if self._values.get(f.name) is None and not f.schema.optional and f.schema.default is None:
                raise DataError(f'Invalid value: null used for required field: "{f.name}"')

    def items(self) -> Iterator[tuple[str, Any]]:
        for f in self.schema.fields:
            yield f.name, self.get(f.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Struct) and other.schema == self.schema and dict(other.items()) == dict(self.items())

    def __hash__(self) -> int:
        return hash((self.schema, tuple(self.items())))

    def __repr__(self) -> str:
        inner = ",".join(f"{k}={v!r}" for k, v in self.items())
        return f"Struct{{{inner}}}"


class SchemaAndValue(NamedTuple):
    """What a converter's `to_connect_data` returns: an optional schema and the value.

    A NamedTuple rather than a dataclass: converters build one per record, and tuples are the cheapest.
    """

    schema: Schema | None
    value: Any


NULL_SCHEMA_AND_VALUE = SchemaAndValue(None, None)


class SchemaAndValues(NamedTuple):
    """What a converter's `to_connect_data_batch` returns: the one schema of a column, and its values in order."""

    schema: Schema | None
    values: list[Any]


class StructColumns:
    """Struct values of one STRUCT schema as one list per field: what a converter's
    `to_connect_columns_batch` returns, and what a sink batch's `value_columns` holds.

    A sink that writes columns (Parquet, a database's bulk insert) reads a field's values as one list
    instead of one Struct per record, and a converter that decodes field by field (Avro) never builds
    those Structs. `columns[name][i]` is what `structs[i].get(name)` would give: the field's schema
    default stands in for a null. Nested values take their Connect form (a Struct for a nested struct,
    a dict for a map, a list for an array), as in a Struct. Do not change the lists.
    """

    __slots__ = ("columns", "schema")

    def __init__(self, schema: Schema, columns: Mapping[str, Sequence[Any]]) -> None:
        if schema.type is not SchemaType.STRUCT:
            raise DataError(f"StructColumns need a STRUCT schema, got {schema.type.name}")
        names = [f.name for f in schema.fields]
        if not names:
            raise DataError("StructColumns need a struct schema with fields: without any, they cannot count values")
        if list(columns) != names:
            raise DataError(f"StructColumns need one column per field, in schema order: {names}, got {list(columns)}")
        lengths = {len(column) for column in columns.values()}
        if len(lengths) > 1:
            raise DataError(f"StructColumns' columns differ in length: {sorted(lengths)}")
        self.schema = schema
        self.columns = columns

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    def struct(self, index: int) -> Struct:
        """The value at `index` as a Struct, built now."""
        return Struct.unchecked(self.schema, {name: column[index] for name, column in self.columns.items()})

    def structs(self) -> list[Struct]:
        """Every value as a Struct, in order (what a sink reading `values` gets)."""
        names = list(self.columns)
        unchecked, schema = Struct.unchecked, self.schema
        rows = zip(*self.columns.values(), strict=True)
        return [unchecked(schema, dict(zip(names, row, strict=True))) for row in rows]

    def __repr__(self) -> str:
        return f"StructColumns({len(self)} values, fields {list(self.columns)})"


__all__ = [
    "BOOLEAN_SCHEMA",
    "BYTES_SCHEMA",
    "DATE_NAME",
    "DATE_SCHEMA",
    "DECIMAL_NAME",
    "DECIMAL_SCALE_PARAM",
    "FLOAT32_SCHEMA",
    "FLOAT64_SCHEMA",
    "INT8_SCHEMA",
    "INT16_SCHEMA",
    "INT32_SCHEMA",
    "INT64_SCHEMA",
    "NULL_SCHEMA_AND_VALUE",
    "OPTIONAL_BOOLEAN_SCHEMA",
    "OPTIONAL_BYTES_SCHEMA",
    "OPTIONAL_FLOAT32_SCHEMA",
    "OPTIONAL_FLOAT64_SCHEMA",
    "OPTIONAL_INT8_SCHEMA",
    "OPTIONAL_INT16_SCHEMA",
    "OPTIONAL_INT32_SCHEMA",
    "OPTIONAL_INT64_SCHEMA",
    "OPTIONAL_STRING_SCHEMA",
    "STRING_SCHEMA",
    "TIMESTAMP_NAME",
    "TIMESTAMP_SCHEMA",
    "TIME_NAME",
    "TIME_SCHEMA",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaAndValues",
    "SchemaType",
    "Struct",
    "StructColumns",
]


class Utf8Strings(Sequence[str]):
    """A column of strings held as their UTF-8 encodings, each decoded when read.

    For a source task that reads text as bytes (FileStreamSource): handed as a batch's values, the bytes go
    to Kafka as they are wherever the value converter writes UTF-8 (`StringConverter`), so a line is
    neither decoded nor encoded again on its way; every other reader sees `str`s. Each entry must be valid
    UTF-8 (reading an entry that is not raises UnicodeDecodeError). Any thread; do not change `encoded`
    once handed over.
    """

    __slots__ = ("encoded",)

    def __init__(self, encoded: list[bytes]) -> None:
        self.encoded = encoded

    def __len__(self) -> int:
        return len(self.encoded)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Utf8Strings: ...

    def __getitem__(self, index: int | slice) -> str | Utf8Strings:
        if isinstance(index, slice):
            return Utf8Strings(self.encoded[index])
        return self.encoded[index].decode()

    def __iter__(self) -> Iterator[str]:
        return map(bytes.decode, self.encoded)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Utf8Strings):
            return self.encoded == other.encoded
        return isinstance(other, Sequence) and not isinstance(other, (str, bytes)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Utf8Strings({len(self.encoded)} strings)"
