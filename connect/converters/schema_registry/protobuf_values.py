"""Connect values <-> Protobuf messages, compiled once per (Connect schema, message descriptor) into plain
closures, as Confluent's ProtobufData.fromConnectData / toConnectData convert them: null fields are left
unset; empty arrays are not written; a union struct sets its first non-null member; Decimal is
`confluent.type.Decimal` (unscaled big-endian two's-complement bytes, precision, scale), Date
`google.type.Date`, Time `google.type.TimeOfDay` (millisecond precision), Timestamp
`google.protobuf.Timestamp`. Reading, a scalar or repeated field is always read (its proto3 default when
absent) and a message field only when present (or as a struct of defaults with
`generate.struct.for.nulls`). Pure functions, any thread.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from connect.api.data import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connect.converters import logical
from connect.converters.schema_registry.protobuf_names import (
    ENUM_PARAM,
    UNION_PREFIX,
    WRAPPER_TYPES,
    ProtobufDataOptions,
    scrub,
)
from connect.converters.schema_registry.protobuf_to_connect import (
    has_optional_keyword,
    is_map_entry,
    is_repeated,
    real_oneofs,
    union_field_name,
)

Fill = Callable[[Any, Any], None]
"""(message to fill in place, Connect value)."""
Convert = Callable[[Any], Any]

_NANOS_PER_MS = 1_000_000


# ------------------------------------------------------------------------------------ Connect -> Protobuf


def compile_struct_filler(schema: Schema, message: Descriptor) -> Fill:
    """Fills a message of `message` from a Struct of `schema`."""
    setters: list[tuple[str, Callable[[Any, Any], None]]] = []
    for field in schema.fields:
        if field.schema.type is SchemaType.STRUCT and (field.schema.name or "").startswith(UNION_PREFIX):
            setters.append((field.name, _union_setter(field.schema, message)))
            continue
        descriptor = _field_named(message, field.name)
        setters.append((field.name, _field_setter(field.schema, descriptor)))

    def fill(target: Any, struct: Any) -> None:
        if not isinstance(struct, Struct):
            raise DataError(f"Invalid type for STRUCT: {type(struct).__name__}")
        if struct.schema is not schema and struct.schema != schema:
            raise DataError("Mismatching struct schema")
        values = struct.raw_values()
        for name, setter in setters:
            value = values.get(name)
            if value is None:
                value = struct.get(name)  # the field's default, if any
                if value is None:
                    continue
            setter(target, value)

    return fill


def _field_named(message: Descriptor, name: str) -> FieldDescriptor:
    descriptor = message.fields_by_name.get(name)
    if descriptor is None:
        descriptor = message.fields_by_name.get(scrub(name))
    if descriptor is None:
        raise DataError(f"Cannot find field with name {name} in message {message.full_name}")
    return descriptor


def _union_setter(union: Schema, message: Descriptor) -> Callable[[Any, Any], None]:
    members = [(f.name, _field_setter(f.schema, _field_named(message, f.name))) for f in union.fields]

    def set_union(target: Any, value: Any) -> None:
        values = value.raw_values() if isinstance(value, Struct) else {}
        for name, setter in members:
            member = values.get(name)
            if member is not None:
                setter(target, member)
                return
        raise DataError("Cannot find non-null field")

    return set_union


def _field_setter(schema: Schema, field: FieldDescriptor) -> Callable[[Any, Any], None]:
    name = field.name
    if is_map_entry(field):
        return _map_setter(schema, field)
    if is_repeated(field):
        if schema.type is not SchemaType.ARRAY or schema.value_schema is None:
            raise DataError(f"field {name} is repeated but its Connect schema is {schema.type.name}")
        element = schema.value_schema
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            fill_element = _message_filler(element, field)

            def set_messages(target: Any, values: Any) -> None:
                repeated = getattr(target, name)
                for value in values:
                    if value is None:
                        raise DataError(f"null element in array field {name}: Protobuf has no null elements")
                    fill_element(repeated.add(), value)

            return set_messages
        convert = _scalar(element, field)

        def set_scalars(target: Any, values: Any) -> None:
            if None in values:
                raise DataError(f"null element in array field {name}: Protobuf has no null elements")
            getattr(target, name).extend([convert(v) for v in values])

        return set_scalars
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        fill = _message_filler(schema, field)

        def set_message(target: Any, value: Any) -> None:
            sub = getattr(target, name)
            sub.SetInParent()
            fill(sub, value)

        return set_message
    convert = _scalar(schema, field)
    return lambda target, value: setattr(target, name, convert(value))


def _map_setter(schema: Schema, field: FieldDescriptor) -> Callable[[Any, Any], None]:
    if schema.type is not SchemaType.MAP or schema.key_schema is None or schema.value_schema is None:
        raise DataError(f"field {field.name} is a map but its Connect schema is {schema.type.name}")
    name = field.name
    key_field, value_field = field.message_type.fields
    set_key = _field_setter(schema.key_schema, key_field)
    set_value = _field_setter(schema.value_schema, value_field)
    if field.message_type.GetOptions().map_entry:  # a real `map<K, V>`: the container is keyed
        convert_key = _scalar(schema.key_schema, key_field)
        if value_field.type == FieldDescriptor.TYPE_MESSAGE:
            fill_value = _message_filler(schema.value_schema, value_field)

            def set_message_map(target: Any, values: Any) -> None:
                container = getattr(target, name)
                for key, value in values.items():
                    sub = container[convert_key(key)]
                    if value is not None:
                        fill_value(sub, value)

            return set_message_map
        convert_value = _scalar(schema.value_schema, value_field)

        def set_scalar_map(target: Any, values: Any) -> None:
            container = getattr(target, name)
            for key, value in values.items():
                container[convert_key(key)] = convert_value(value)

        return set_scalar_map

    def set_entries(target: Any, values: Any) -> None:
        repeated = getattr(target, name)
        for key, value in values.items():
            entry = repeated.add()
            if key is not None:
                set_key(entry, key)
            if value is not None:
                set_value(entry, value)

    return set_entries


def compile_root_scalar(schema: Schema, wrapper: Descriptor) -> Convert:
    """A primitive Connect value -> the `value` of the top-level wrapper message it is written as."""
    return _scalar(schema, wrapper.fields_by_name["value"])


def _message_filler(schema: Schema, field: FieldDescriptor) -> Fill:
    """Fills a message of `field`'s type from a Connect value of `schema` (a struct, a logical or a wrapped
    primitive)."""
    message = field.message_type
    if schema.name == DECIMAL_NAME:
        scale = logical.decimal_scale(schema)
        return lambda target, value: _fill_decimal(target, value, scale)
    if schema.name == DATE_NAME:
        return _fill_date
    if schema.name == TIME_NAME:
        return _fill_time
    if schema.name == TIMESTAMP_NAME:
        return _fill_timestamp
    if message.full_name in WRAPPER_TYPES and schema.type is not SchemaType.STRUCT:
        convert = _scalar(schema, message.fields_by_name["value"])

        def fill_wrapper(target: Any, value: Any) -> None:
            target.value = convert(value)

        return fill_wrapper
    if schema.type is SchemaType.STRUCT:
        return compile_struct_filler(schema, message)
    raise DataError(
        f"field {field.name} is the message {message.full_name} but its Connect schema is {schema.type.name}"
    )


def _fill_decimal(target: Any, value: Any, scale: int) -> None:
    if not isinstance(value, Decimal):
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = Decimal(str(value))
        else:
            raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(value).__name__}")
    number = logical.unscaled(value, scale)
    length = (number if number >= 0 else ~number).bit_length() // 8 + 1
    target.value = number.to_bytes(length, "big", signed=True)
    target.precision = max(len(str(abs(number))), 1)
    target.scale = scale


def _fill_date(target: Any, value: Any) -> None:
    day = logical.days_to_date(logical.date_to_days(value))
    target.year, target.month, target.day = day.year, day.month, day.day


def _fill_time(target: Any, value: Any) -> None:
    millis = logical.time_to_millis(value)
    if not 0 <= millis < logical.MS_PER_DAY:
        raise DataError("Time values must use number of millis greater than 0 and less than 86400000")
    seconds, ms = divmod(millis, 1000)
    minutes, target.seconds = divmod(seconds, 60)
    target.hours, target.minutes = divmod(minutes, 60)
    target.nanos = ms * _NANOS_PER_MS


def _fill_timestamp(target: Any, value: Any) -> None:
    seconds, ms = divmod(logical.timestamp_to_millis(value), 1000)
    target.seconds = seconds
    target.nanos = ms * _NANOS_PER_MS


def _scalar(schema: Schema, field: FieldDescriptor) -> Convert:
    """A Connect value of `schema` as the Python value of the non-message field `field`."""
    if field.type == FieldDescriptor.TYPE_ENUM:
        if schema.type is SchemaType.INT32:
            return _checked_int
        prefix = ENUM_PARAM + "."
        numbers = {k[len(prefix) :]: int(v) for k, v in (schema.parameters or {}).items() if k.startswith(prefix)}
        if not numbers:
            numbers = {v.name: v.number for v in field.enum_type.values}

        def enum_number(value: Any) -> int:
            try:
                return numbers[value]
            except (KeyError, TypeError):
                raise DataError(f"{value!r} is not a symbol of enum {field.enum_type.full_name}") from None

        return enum_number
    if field.type == FieldDescriptor.TYPE_BYTES:
        return _checked_bytes
    if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return _checked_float
    if field.type == FieldDescriptor.TYPE_BOOL:
        return _checked_bool
    if field.type == FieldDescriptor.TYPE_STRING:
        return _checked_str
    return _checked_int


def _checked_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"Invalid type for an integer field: {type(value).__name__}")
    return value


def _checked_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataError(f"Invalid type for a floating point field: {type(value).__name__}")
    return float(value)


def _checked_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise DataError(f"Invalid type for BOOLEAN: {type(value).__name__}")
    return value


def _checked_str(value: Any) -> str:
    if not isinstance(value, str):
        raise DataError(f"Invalid type for STRING: {type(value).__name__}")
    return value


def _checked_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise DataError(f"Invalid type for BYTES: {type(value).__name__}")


# ------------------------------------------------------------------------------------ Protobuf -> Connect


def compile_struct_reader(schema: Schema, message: Descriptor, options: ProtobufDataOptions) -> Convert:
    """A message of `message` -> the Struct of `schema` (the schema `connect_schema_of` made of it)."""
    readers: list[tuple[str, Convert]] = []
    for oneof in real_oneofs(message):
        if options.flatten_unions:  # each member a plain optional field
            for member in oneof.fields:
                read_member = _reader(schema_field(schema, member.name, None, options), member, options)
                readers.append((member.name, _when_present(member.name, read_member)))
            continue
        members = [(f.name, _reader(schema_field(schema, f.name, oneof, options), f, options)) for f in oneof.fields]
        readers.append(_oneof_reader(schema, oneof.name, union_field_name(oneof, options), members, options))
    oneof_members = {f.name for o in real_oneofs(message) for f in o.fields}
    for field in message.fields:
        if field.name in oneof_members:
            continue
        read = _reader(schema_field(schema, field.name, None, options), field, options)
        readers.append((field.name, _present_or_none(field, read, options)))

    def read_struct(value: Any) -> Struct:
        return Struct.unchecked(schema, {name: read(value) for name, read in readers})

    return read_struct


def schema_field(schema: Schema, name: str, oneof: Any, options: ProtobufDataOptions) -> Schema:
    if oneof is not None and not options.flatten_unions:
        union = schema.field(union_field_name(oneof, options))
        assert union is not None
        member = union.schema.field(name)
    else:
        member = schema.field(name)
    assert member is not None
    return member.schema


def _oneof_reader(
    schema: Schema, oneof_name: str, field_name: str, members: list[tuple[str, Convert]], options: ProtobufDataOptions
) -> tuple[str, Convert]:
    by_name = dict(members)
    union_field = schema.field(field_name)
    assert union_field is not None
    union_schema = union_field.schema

    def read_union(message: Any) -> Struct | None:
        which = message.WhichOneof(oneof_name)
        if which is None:
            return None
        return Struct.unchecked(union_schema, {which: by_name[which](getattr(message, which))})

    return field_name, read_union


def _present_or_none(field: FieldDescriptor, read: Convert, options: ProtobufDataOptions) -> Convert:
    name = field.name
    always = is_repeated(field) or (
        field.type != FieldDescriptor.TYPE_MESSAGE and not has_optional_keyword(field, options)
    )
    if always or (options.generate_struct_for_nulls and field.type == FieldDescriptor.TYPE_MESSAGE):
        return lambda message: read(getattr(message, name))
    return _when_present(name, read)


def _when_present(name: str, read: Convert) -> Convert:
    return lambda message: read(getattr(message, name)) if message.HasField(name) else None


def _reader(schema: Schema, field: FieldDescriptor, options: ProtobufDataOptions) -> Convert:
    """The Python value of `field` (the whole repeated container for a repeated field) -> the Connect value."""
    if is_map_entry(field) and schema.type is SchemaType.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        key_field, value_field = field.message_type.fields
        read_key = _single_reader(schema.key_schema, key_field, options)
        read_value = _single_reader(schema.value_schema, value_field, options)
        if field.message_type.GetOptions().map_entry:
            return lambda container: {read_key(k): read_value(v) for k, v in container.items()}
        return lambda entries: {read_key(e.key): read_value(e.value) for e in entries}
    if is_repeated(field):
        assert schema.value_schema is not None
        read_element = _single_reader(schema.value_schema, field, options)
        return lambda values: [read_element(v) for v in values]
    return _single_reader(schema, field, options)


def _single_reader(schema: Schema, field: FieldDescriptor, options: ProtobufDataOptions) -> Convert:
    if field.type == FieldDescriptor.TYPE_ENUM:
        if schema.type is SchemaType.INT32:
            return int
        names = {v.number: v.name for v in field.enum_type.values}
        return lambda number: names.get(number, str(number))
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        return _identity
    if schema.name == DECIMAL_NAME:
        return _read_decimal
    if schema.name == DATE_NAME:
        return lambda m: dt.date(m.year, m.month, m.day)
    if schema.name == TIME_NAME:
        return lambda m: logical.millis_to_time(
            ((m.hours * 60 + m.minutes) * 60 + m.seconds) * 1000 + m.nanos // _NANOS_PER_MS
        )
    if schema.name == TIMESTAMP_NAME:
        return lambda m: logical.millis_to_timestamp(m.seconds * 1000 + m.nanos // _NANOS_PER_MS)
    if schema.type is not SchemaType.STRUCT and field.message_type.full_name in WRAPPER_TYPES:
        return lambda m: m.value
    return compile_struct_reader(schema, field.message_type, options)


def _identity(value: Any) -> Any:
    return value


def _read_decimal(message: Any) -> Decimal:
    return logical.decimal_from_bytes(message.value, message.scale)
