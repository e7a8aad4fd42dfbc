"""Connect schema -> Protobuf file, as Confluent's ProtobufData.fromConnectSchema writes it: a proto3 file
whose package is the schema name's namespace and whose one top-level message is the struct; nested structs,
maps (`<Name>Entry` messages with `key` = 1 and `value` = 2, repeated) and enums are declared inside the
message that uses them; `io.confluent.connect.protobuf.Union.*` structs become oneofs; arrays are repeated
fields; Decimal, Date, Time and Timestamp are `confluent.type.Decimal`, `google.type.Date`,
`google.type.TimeOfDay` and `google.protobuf.Timestamp`; int8/int16 are int32 fields carrying
`connect.type` in Confluent's `confluent.field_meta` option; optional fields are wrapper messages
(`wrapper.for.nullables`) or proto3 `optional` fields (`optional.for.nullables`). A root schema of a
primitive type is the matching `google.protobuf.*Value` wrapper. Pure functions, any thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from google.protobuf import descriptor_pb2

from connect.api.data import DATE_NAME, DECIMAL_NAME, DECIMAL_SCALE_PARAM, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connect.api.errors import DataError
from connect.converters.schema_registry import protobuf_descriptors as descriptors
from connect.converters.schema_registry.protobuf_names import (
    CONNECT_PRECISION,
    CONNECT_TYPE,
    DATE_TYPE,
    DECIMAL_TYPE,
    DEFAULT_SCHEMA_NAME,
    ENUM_PARAM,
    FILE_OF_TYPE,
    META_FILE,
    PRECISION,
    SCALE,
    TAG_PARAM,
    TIME_TYPE,
    TIMESTAMP_TYPE,
    TYPE_PARAM,
    UNION_PREFIX,
    WRAPPER_PARAM,
    WRAPPERS_FILE,
    ProtobufDataOptions,
    map_entry_name,
    scrub,
)

FieldProto = descriptor_pb2.FieldDescriptorProto
MessageProto = descriptor_pb2.DescriptorProto

_SCALARS = {
    "double": FieldProto.TYPE_DOUBLE,
    "float": FieldProto.TYPE_FLOAT,
    "int64": FieldProto.TYPE_INT64,
    "uint64": FieldProto.TYPE_UINT64,
    "int32": FieldProto.TYPE_INT32,
    "fixed64": FieldProto.TYPE_FIXED64,
    "fixed32": FieldProto.TYPE_FIXED32,
    "bool": FieldProto.TYPE_BOOL,
    "string": FieldProto.TYPE_STRING,
    "bytes": FieldProto.TYPE_BYTES,
    "uint32": FieldProto.TYPE_UINT32,
    "sfixed32": FieldProto.TYPE_SFIXED32,
    "sfixed64": FieldProto.TYPE_SFIXED64,
    "sint32": FieldProto.TYPE_SINT32,
    "sint64": FieldProto.TYPE_SINT64,
}
_WRAPPER_OF = {
    SchemaType.INT8: "google.protobuf.Int32Value",
    SchemaType.INT16: "google.protobuf.Int32Value",
    SchemaType.INT32: "google.protobuf.Int32Value",
    SchemaType.INT64: "google.protobuf.Int64Value",
    SchemaType.FLOAT32: "google.protobuf.FloatValue",
    SchemaType.FLOAT64: "google.protobuf.DoubleValue",
    SchemaType.BOOLEAN: "google.protobuf.BoolValue",
    SchemaType.STRING: "google.protobuf.StringValue",
    SchemaType.BYTES: "google.protobuf.BytesValue",
}
_UNSIGNED_WRAPPER = {"uint32": "google.protobuf.UInt32Value", "fixed32": "google.protobuf.UInt32Value"}
_UNSIGNED_WRAPPER |= {"uint64": "google.protobuf.UInt64Value", "fixed64": "google.protobuf.UInt64Value"}
_PLAIN = {
    SchemaType.INT8: "int32",
    SchemaType.INT16: "int32",
    SchemaType.INT32: "int32",
    SchemaType.INT64: "int64",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.BOOLEAN: "bool",
    SchemaType.STRING: "string",
    SchemaType.BYTES: "bytes",
}
_LOGICAL = {DECIMAL_NAME: DECIMAL_TYPE, DATE_NAME: DATE_TYPE, TIME_NAME: TIME_TYPE, TIMESTAMP_NAME: TIMESTAMP_TYPE}


@dataclass(frozen=True)
class ProtobufFile:
    proto: descriptor_pb2.FileDescriptorProto
    message_name: str
    """The full name of the message the values are written as."""


def is_union(schema: Schema) -> bool:
    return schema.type is SchemaType.STRUCT and (schema.name or "").startswith(UNION_PREFIX)


def _params(schema: Schema) -> dict[str, str]:
    return dict(schema.parameters or {})


@dataclass
class _Context:
    options: ProtobufDataOptions
    dependencies: list[str] = field(default_factory=list)
    default_names: int = 0
    declared: dict[int, set[str]] = field(default_factory=dict)

    def name_or_default(self, name: str | None) -> str:
        if name:
            return name
        self.default_names += 1
        return f"{DEFAULT_SCHEMA_NAME}{self.default_names}"

    def unqualified(self, name: str | None) -> str:
        return self.scrub(self.name_or_default(name).rsplit(".", 1)[-1])

    def scrub(self, name: str) -> str:
        return scrub(name) if self.options.scrub_invalid_names else name

    def depend(self, file_name: str) -> None:
        if file_name not in self.dependencies:
            self.dependencies.append(file_name)


def protobuf_file_of(schema: Schema, options: ProtobufDataOptions) -> ProtobufFile:
    """The file (and message) of a Connect schema; DataError for schemas Protobuf cannot hold."""
    if schema.type is not SchemaType.STRUCT:
        wrapper = _WRAPPER_OF.get(schema.type)
        if wrapper is None or schema.name in _LOGICAL:
            raise DataError(f"Unsupported root schema of type {schema.type.name}")
        proto = descriptor_pb2.FileDescriptorProto.FromString(descriptors.builtin_files()[WRAPPERS_FILE])
        return ProtobufFile(proto, wrapper)
    context = _Context(options)
    full_name = context.name_or_default(schema.name)
    parts = [context.scrub(p) for p in full_name.split(".")]
    proto = descriptor_pb2.FileDescriptorProto(name="default", syntax="proto3")
    if len(parts) > 1:
        proto.package = ".".join(parts[:-1])
    proto.message_type.append(_message(context, parts[-1], schema))
    for dependency in context.dependencies:
        proto.dependency.append(dependency)
    return ProtobufFile(proto, ".".join(parts))


def _message(context: _Context, name: str, schema: Schema) -> descriptor_pb2.DescriptorProto:
    message = MessageProto(name=name)
    next_tag = 1
    for connect_field in schema.fields:
        field_schema = connect_field.schema
        tag_param = (field_schema.parameters or {}).get(TAG_PARAM)
        if tag_param is not None:
            tag = int(tag_param)
        else:
            tag = next_tag
            next_tag += 1
        field_name = context.scrub(connect_field.name)
        if is_union(field_schema):
            _oneof(context, message, field_schema, tag)
            continue
        proto_field = _field(context, message, field_schema, field_name, tag, oneof_member=False)
        if context.options.optional_for_nullables and field_schema.optional:
            proto_field.proto3_optional = proto_field.label != FieldProto.LABEL_REPEATED
        message.field.append(proto_field)
    # A proto3 `optional` field is alone in a synthetic oneof named after it, declared after the real ones.
    for proto_field in message.field:
        if proto_field.proto3_optional:
            proto_field.oneof_index = len(message.oneof_decl)
            message.oneof_decl.add(name="_" + proto_field.name)
    # Oneof members without tags (a union not read from Protobuf) take the tags after the others.
    used = {f.number for f in message.field}
    free = (n for n in range(1, 1 << 29) if n not in used)
    for proto_field in message.field:
        if proto_field.number == 0:
            proto_field.number = next(free)
    return message


def _oneof(context: _Context, message: descriptor_pb2.DescriptorProto, union: Schema, tag: int) -> None:
    name = context.unqualified((union.name or "")[len(UNION_PREFIX) :])
    index = len(message.oneof_decl)
    message.oneof_decl.add(name=name)
    for member in union.fields:
        member_tag = int((member.schema.parameters or {}).get(TAG_PARAM, 0))
        proto_field = _field(context, message, member.schema, context.scrub(member.name), member_tag, oneof_member=True)
        proto_field.oneof_index = index
        message.field.append(proto_field)


def _field(
    context: _Context,
    message: descriptor_pb2.DescriptorProto,
    schema: Schema,
    name: str,
    tag: int,
    *,
    oneof_member: bool,
) -> descriptor_pb2.FieldDescriptorProto:
    proto_field = FieldProto(name=name, number=tag, label=FieldProto.LABEL_OPTIONAL)
    if schema.type is SchemaType.ARRAY:
        proto_field.label = FieldProto.LABEL_REPEATED
        assert schema.value_schema is not None
        schema = schema.value_schema
        if schema.type is SchemaType.ARRAY:
            raise DataError(f"field {name}: an array of arrays has no Protobuf form")
    elif schema.type is SchemaType.MAP:
        proto_field.label = FieldProto.LABEL_REPEATED
    params: dict[str, str] = {}
    type_name = _type_of(context, schema, name, params, oneof_member)
    if schema.type is SchemaType.STRUCT:
        if is_union(schema):
            raise DataError(f"field {name}: a union inside an array or map has no Protobuf form")
        declared = context.declared.setdefault(id(message), set())
        if type_name not in declared:
            declared.add(type_name)
            message.nested_type.append(_message(context, type_name, schema))
    elif schema.type is SchemaType.MAP:
        message.nested_type.append(_map_entry(context, type_name, schema))
    elif ENUM_PARAM in (schema.parameters or {}):
        enum_name = context.unqualified(schema.name)
        if all(e.name != enum_name for e in message.enum_type):
            message.enum_type.append(_enum(enum_name, schema))
    if type_name in _SCALARS:
        proto_field.type = _SCALARS[type_name]
    else:
        if type_name in FILE_OF_TYPE:
            context.depend(FILE_OF_TYPE[type_name])
            type_name = "." + type_name
        elif type_name.startswith("google.protobuf.") and type_name.endswith("Value"):
            context.depend(WRAPPERS_FILE)
            type_name = "." + type_name
        is_enum = ENUM_PARAM in (schema.parameters or {}) and schema.type in (SchemaType.STRING, SchemaType.INT32)
        proto_field.type = FieldProto.TYPE_ENUM if is_enum else FieldProto.TYPE_MESSAGE
        proto_field.type_name = type_name
    if params:
        _set_meta(context, proto_field, params)
    return proto_field


def _type_of(context: _Context, schema: Schema, field_name: str, params: dict[str, str], oneof_member: bool) -> str:
    """ProtobufData.dataTypeFromConnectSchema: the type name of a field (a scalar's, or a message's or enum's)."""
    logical = _LOGICAL.get(schema.name or "")
    if logical is not None:
        if logical == DECIMAL_TYPE:
            parameters = schema.parameters or {}
            if CONNECT_PRECISION in parameters:
                params[PRECISION] = parameters[CONNECT_PRECISION]
            if DECIMAL_SCALE_PARAM in parameters:
                params[SCALE] = parameters[DECIMAL_SCALE_PARAM]
        return logical
    parameters = schema.parameters or {}
    wrapped = (
        context.options.wrapper_for_nullables
        and schema.optional
        and (not oneof_member or parameters.get(WRAPPER_PARAM, "").lower() == "true")
    )
    kind = schema.type
    if kind in (SchemaType.INT8, SchemaType.INT16):
        params[CONNECT_TYPE] = kind.value
    if kind in (SchemaType.INT32, SchemaType.STRING) and ENUM_PARAM in parameters:
        return parameters[ENUM_PARAM]
    if kind in _PLAIN:
        plain = (
            parameters.get(TYPE_PARAM, _PLAIN[kind]) if kind in (SchemaType.INT32, SchemaType.INT64) else _PLAIN[kind]
        )
        if plain not in _SCALARS:
            raise DataError(f"field {field_name}: unknown Protobuf type {plain} in parameter {TYPE_PARAM}")
        return _UNSIGNED_WRAPPER.get(plain, _WRAPPER_OF[kind]) if wrapped else plain
    if kind is SchemaType.MAP:
        return map_entry_name(context.unqualified(schema.name))
    if kind is SchemaType.STRUCT:
        name = context.unqualified(schema.name)
        return name + "Message" if name == field_name else name
    raise DataError(f"Unknown schema type: {kind.name}")


def _map_entry(context: _Context, name: str, schema: Schema) -> descriptor_pb2.DescriptorProto:
    entry = MessageProto(name=name)
    assert schema.key_schema is not None and schema.value_schema is not None
    entry.field.append(_field(context, entry, schema.key_schema, "key", 1, oneof_member=False))
    entry.field.append(_field(context, entry, schema.value_schema, "value", 2, oneof_member=False))
    return entry


def _enum(name: str, schema: Schema) -> descriptor_pb2.EnumDescriptorProto:
    enum = descriptor_pb2.EnumDescriptorProto(name=name)
    prefix = ENUM_PARAM + "."
    for key, value in (schema.parameters or {}).items():
        if key.startswith(prefix):
            enum.value.add(name=key[len(prefix) :], number=int(value))
    if not enum.value:
        raise DataError(f"enum {name} has no symbols (parameters {prefix}<SYMBOL>=<number>)")
    return enum


def _set_meta(context: _Context, proto_field: descriptor_pb2.FieldDescriptorProto, params: dict[str, str]) -> None:
    """Confluent's `confluent.field_meta` option (confluent/meta.proto, field 1088 of FieldOptions)."""
    meta = proto_field.options.Extensions[descriptors.field_meta_extension()]
    for key, value in params.items():
        meta.params[key] = value
    context.depend(META_FILE)
