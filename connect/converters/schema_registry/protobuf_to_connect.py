"""Protobuf message -> Connect schema, as Confluent's ProtobufData.toConnectSchema reads it: a struct named
after the message (its full name with `enhanced.protobuf.schema.support`) with each real oneof first, as an
optional struct `io.confluent.connect.protobuf.Union.<oneof>` in a field `<oneof>_<index>` (without the
index when `generate.index.for.unions=false`; its members as plain fields with `flatten.unions`), then the
other fields in declaration order, each carrying its tag (`io.confluent.connect.protobuf.Tag`). Scalars and
messages are optional unless `wrapper.for.nullables` or `optional.for.nullables` say otherwise; enums are
strings (ints with `int.for.enums`) with their symbols as parameters; repeated fields are optional arrays of
optional elements; `*Entry` messages are maps; the well-known types map to Connect's logical types. A root
wrapper message is its primitive (`wrapper.for.raw.primitives`). Pure functions, any thread.
"""

from __future__ import annotations

import dataclasses

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, FileDescriptor, OneofDescriptor

from connect.api.data import DATE_SCHEMA, TIME_SCHEMA, TIMESTAMP_SCHEMA, Field, Schema, SchemaType
from connect.api.errors import DataError
from connect.converters.schema_registry import protobuf_descriptors as descriptors
from connect.converters.schema_registry.protobuf_names import (
    CONNECT_PRECISION,
    CONNECT_TYPE,
    DATE_TYPE,
    DECIMAL_TYPE,
    ENUM_PARAM,
    MAP_ENTRY_SUFFIX,
    PRECISION,
    SCALE,
    TAG_PARAM,
    TIME_TYPE,
    TIMESTAMP_TYPE,
    TYPE_PARAM,
    UNION_PREFIX,
    WRAPPER_PARAM,
    WRAPPER_TYPES,
    ProtobufDataOptions,
    map_schema_name,
)

_INT32_TYPES = {FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_SINT32: "sint32"}
_INT32_TYPES[FieldDescriptor.TYPE_SFIXED32] = "sfixed32"
_INT64_TYPES = {
    FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_FIXED32: "fixed32",
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_SINT64: "sint64",
    FieldDescriptor.TYPE_FIXED64: "fixed64",
    FieldDescriptor.TYPE_SFIXED64: "sfixed64",
}
_SIMPLE = {
    FieldDescriptor.TYPE_FLOAT: SchemaType.FLOAT32,
    FieldDescriptor.TYPE_DOUBLE: SchemaType.FLOAT64,
    FieldDescriptor.TYPE_BOOL: SchemaType.BOOLEAN,
    FieldDescriptor.TYPE_STRING: SchemaType.STRING,
    FieldDescriptor.TYPE_BYTES: SchemaType.BYTES,
}


def connect_schema_of(message: Descriptor, options: ProtobufDataOptions, version: int | None = None) -> Schema:
    """The Connect schema of values of `message`; DataError for recursive messages (a Connect schema is a tree)."""
    if options.wrapper_for_raw_primitives and message.full_name in WRAPPER_TYPES:
        return Schema(SchemaType(WRAPPER_TYPES[message.full_name]), version=version)
    schema = _struct(message, options, ())
    return dataclasses.replace(schema, version=version) if version is not None else schema


def union_field_name(oneof: OneofDescriptor, options: ProtobufDataOptions) -> str:
    return f"{oneof.name}_{oneof.index}" if options.generate_index_for_unions else oneof.name


def real_oneofs(message: Descriptor) -> list[OneofDescriptor]:
    """The oneofs a user declared, not the synthetic ones of proto3 `optional` fields."""
    return [o for o in message.oneofs if not (len(o.fields) == 1 and _proto3_optional(o.fields[0]))]


def _proto3_optional(field: FieldDescriptor) -> bool:
    return (
        bool(getattr(field, "has_presence", False))
        and field.containing_oneof is not None
        and (field.containing_oneof.name == "_" + field.name)
    )


def has_optional_keyword(field: FieldDescriptor, options: ProtobufDataOptions) -> bool:
    """A proto3 `optional` field, or (with `optional.for.proto2`) an optional proto2 field outside a oneof."""
    if _proto3_optional(field):
        return True
    if not options.optional_for_proto2:
        return False
    return (
        _syntax(field.file) == "proto2"
        and not is_repeated(field)
        and not field.is_required
        and field.containing_oneof is None
    )


def is_repeated(field: FieldDescriptor) -> bool:
    # `label` is gone from newer protobuf releases; `is_repeated` is absent from older ones.
    repeated = getattr(field, "is_repeated", None)
    if repeated is None:
        return bool(field.label == FieldDescriptor.LABEL_REPEATED)
    return bool(repeated)


def _syntax(file: FileDescriptor) -> str:
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    return proto.syntax or "proto2"


def _struct(message: Descriptor, options: ProtobufDataOptions, seen: tuple[str, ...]) -> Schema:
    if message.full_name in seen:
        raise DataError(f"message {message.full_name} contains itself; recursive messages have no Connect schema")
    seen = (*seen, message.full_name)
    fields: list[tuple[str, Schema]] = []
    oneof_fields: set[str] = set()
    for oneof in real_oneofs(message):
        members = [(f.name, _field(f, options, seen, oneof_member=True)) for f in oneof.fields]
        oneof_fields.update(f.name for f in oneof.fields)
        if options.flatten_unions:
            fields.extend(members)
        else:
            name = oneof.full_name if options.enhanced_schema_support else oneof.name
            union = Schema.struct(members, name=UNION_PREFIX + name, optional=True)
            fields.append((union_field_name(oneof, options), union))
    for proto_field in message.fields:
        if proto_field.name not in oneof_fields:
            fields.append((proto_field.name, _field(proto_field, options, seen, oneof_member=False)))
    name = message.full_name if options.enhanced_schema_support else message.name
    return Schema.struct(fields, name=name)


def _meta_params(field: FieldDescriptor) -> dict[str, str]:
    """Confluent's `confluent.field_meta` params of a field (`connect.type`, a decimal's precision and scale)."""
    options = field.GetOptions()
    extension = descriptors.field_meta_extension()
    if not options.HasExtension(extension):
        return {}
    return dict(options.Extensions[extension].params)


def _field(
    field: FieldDescriptor, options: ProtobufDataOptions, seen: tuple[str, ...], *, oneof_member: bool
) -> Schema:
    kind = field.type
    params: dict[str, str] = {}
    name: str | None = None
    optional = False
    version: int | None = None
    key_schema = value_schema = None
    fields: tuple[Field, ...] = ()
    if kind in _INT32_TYPES:
        connect_type = _meta_params(field).get(CONNECT_TYPE)
        if connect_type in ("int8", "int16"):
            schema_type = SchemaType(connect_type)
        else:
            schema_type = SchemaType.INT32
            if kind != FieldDescriptor.TYPE_INT32:
                params[TYPE_PARAM] = _INT32_TYPES[kind]
    elif kind in _INT64_TYPES:
        schema_type = SchemaType.INT64
        if kind != FieldDescriptor.TYPE_INT64:
            params[TYPE_PARAM] = _INT64_TYPES[kind]
    elif kind in _SIMPLE:
        schema_type = _SIMPLE[kind]
    elif kind == FieldDescriptor.TYPE_ENUM:
        enum: EnumDescriptor = field.enum_type
        schema_type = SchemaType.INT32 if options.int_for_enums else SchemaType.STRING
        name = enum.full_name if options.enhanced_schema_support else enum.name
        params[ENUM_PARAM] = enum.name
        for value in enum.values:
            params[f"{ENUM_PARAM}.{value.name}"] = str(value.number)
        optional = True
    elif kind == FieldDescriptor.TYPE_MESSAGE or kind == FieldDescriptor.TYPE_GROUP:
        base = _message_field(field, options, seen)
        schema_type, name, version = base.type, base.name, base.version
        params.update(base.parameters or {})
        fields, key_schema, value_schema = base.fields, base.key_schema, base.value_schema
        optional = True
    else:  # pragma: no cover - every Protobuf type is handled above
        raise DataError(f"Unknown Protobuf field type {kind} of field {field.name}")

    element: Schema | None = None
    if is_repeated(field) and schema_type is not SchemaType.MAP:
        element = Schema(schema_type, True, None, name, version, None, params or None, fields, key_schema, value_schema)
        schema_type, name, version, params, fields = SchemaType.ARRAY, None, None, {}, ()
        key_schema, value_schema = None, element
        optional = True
    if oneof_member:
        optional = True
        if (
            options.wrapper_for_nullables
            and kind == FieldDescriptor.TYPE_MESSAGE
            and (field.message_type.full_name in WRAPPER_TYPES)
        ):
            params[WRAPPER_PARAM] = "true"
    elif options.optional_for_nullables:
        if has_optional_keyword(field, options):
            optional = True
    elif not options.wrapper_for_nullables:
        optional = True
    params[TAG_PARAM] = str(field.number)
    return Schema(schema_type, optional, None, name, version, None, params, fields, key_schema, value_schema)


def _message_field(field: FieldDescriptor, options: ProtobufDataOptions, seen: tuple[str, ...]) -> Schema:
    message: Descriptor = field.message_type
    full_name = message.full_name
    if full_name == DECIMAL_TYPE:
        meta = _meta_params(field)
        params = {"scale": str(_int_or(meta.get(SCALE), 0))}
        precision = _int_or(meta.get(PRECISION), None)
        if precision is not None:
            params[CONNECT_PRECISION] = str(precision)
        return dataclasses.replace(Schema.decimal(0), parameters=params)
    if full_name == DATE_TYPE:
        return DATE_SCHEMA
    if full_name == TIME_TYPE:
        return TIME_SCHEMA
    if full_name == TIMESTAMP_TYPE:
        return TIMESTAMP_SCHEMA
    if options.wrapper_for_nullables and full_name in WRAPPER_TYPES:
        return Schema(SchemaType(WRAPPER_TYPES[full_name]))
    if is_map_entry(field):
        key, value = message.fields
        return Schema(
            SchemaType.MAP,
            name=map_schema_name(full_name if options.enhanced_schema_support else message.name),
            key_schema=_field(key, options, seen, oneof_member=False),
            value_schema=_field(value, options, seen, oneof_member=False),
        )
    return _struct(message, options, seen)


def is_map_entry(field: FieldDescriptor) -> bool:
    """ProtobufData.isMapDescriptor: a repeated `*Entry` message of exactly `key` and `value`."""
    if not is_repeated(field) or field.type != FieldDescriptor.TYPE_MESSAGE:
        return False
    message = field.message_type
    names = [f.name for f in message.fields]
    return (
        message.name.endswith(MAP_ENTRY_SUFFIX)
        and names == ["key", "value"]
        and all(not is_repeated(f) for f in message.fields)
    )


def _int_or(text: str | None, default: int | None) -> int | None:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
