"""ProtobufConverter: Confluent's `io.confluent.connect.protobuf.ProtobufConverter`, Protobuf values framed for
a Schema Registry (magic byte, 4-byte schema id, the message indexes, the message), with Confluent's config
keys (registry_converter.py) and ProtobufData's type mapping (protobuf_from_connect.py,
protobuf_to_connect.py, protobuf_values.py). Message classes are made from descriptors with
google.protobuf's message factory: once per Connect schema (writing) and per schema id and message
(reading).

Reading differs from the other formats in one way: a registered file may hold several messages and each
value names its own by the indexes after the schema id, so the readers are kept per (topic, schema id and
indexes): the framing bytes, compared as bytes in a batch like the schema id alone elsewhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.data import Schema, SchemaType
from connect.api.errors import ConfigError, DataError
from connect.converters.schema_registry import wire
from connect.converters.schema_registry.client import EXTRA_HINT
from connect.converters.schema_registry.protobuf_names import ProtobufDataOptions
from connect.converters.schema_registry.protobuf_wire import decode_indexes, encode_indexes
from connect.converters.schema_registry.registry_converter import (
    Encode,
    Reader,
    RegistryConverter,
    bounded_put,
)
from connect.converters.schema_registry.settings import RegistrySettings, registry_config_def

_OPTION_KEYS: dict[str, tuple[str, bool, str]] = {
    "enhanced.protobuf.schema.support": (
        "enhanced_schema_support",
        False,
        "Name structs and enums read from Protobuf by their full names (package included).",
    ),
    "scrub.invalid.names": (
        "scrub_invalid_names",
        False,
        "Replace characters that Protobuf names cannot hold when writing a Connect schema as Protobuf.",
    ),
    "int.for.enums": ("int_for_enums", False, "Read Protobuf enums as INT32 numbers instead of their symbols."),
    "optional.for.nullables": (
        "optional_for_nullables",
        False,
        "Write optional Connect fields as proto3 `optional` fields; read only such fields as optional.",
    ),
    "optional.for.proto2": ("optional_for_proto2", True, "Read optional proto2 fields as optional fields."),
    "wrapper.for.nullables": (
        "wrapper_for_nullables",
        False,
        "Write optional primitive fields as google.protobuf.*Value wrappers, and read wrappers as optional primitives.",
    ),
    "wrapper.for.raw.primitives": (
        "wrapper_for_raw_primitives",
        True,
        "Read a top-level wrapper message (google.protobuf.Int32Value, ...) as its primitive value.",
    ),
    "generate.struct.for.nulls": (
        "generate_struct_for_nulls",
        False,
        "Read an absent message field as a struct of its defaults instead of null.",
    ),
    "generate.index.for.unions": (
        "generate_index_for_unions",
        True,
        "Name the struct field of a oneof `<oneof>_<index>` (false: `<oneof>`).",
    ),
    "flatten.unions": ("flatten_unions", False, "Read the members of a oneof as plain optional fields of the struct."),
}


def protobuf_config_def() -> ConfigDef:
    config = registry_config_def()
    for key, (_, default, doc) in _OPTION_KEYS.items():
        config = config.define(key, ConfigType.BOOLEAN, default, None, Importance.LOW, doc, group="Protobuf")
    return config


@dataclass(frozen=True)
class _FileReader(Reader):
    """What is read once per schema id: the registered file; the messages in it are read per index path."""

    file: Any = None
    version: int | None = None


@dataclass(frozen=True)
class _OwnFile:
    file: Any
    message_name: str


class ProtobufConverter(RegistryConverter):
    """Confluent's ProtobufConverter: `schema.registry.url`, the keys of docs/schema_registry.md, and
    ProtobufDataConfig's switches."""

    format_name = "Protobuf"
    schema_type = "PROTOBUF"

    def config(self) -> ConfigDef:
        return protobuf_config_def()

    def _configure_format(self, configs: Mapping[str, Any], settings: RegistrySettings) -> None:
        values = protobuf_config_def().parse(configs)
        self._options = ProtobufDataOptions(**{attr: values[key] for key, (attr, _, _) in _OPTION_KEYS.items()})
        try:
            package = "connect.converters.schema_registry."
            self._descriptors: Any = importlib.import_module(package + "protobuf_descriptors")
            self._from_connect: Any = importlib.import_module(package + "protobuf_from_connect")
            self._to_connect: Any = importlib.import_module(package + "protobuf_to_connect")
            self._values: Any = importlib.import_module(package + "protobuf_values")
        except ImportError as exc:
            raise ConfigError(f"{EXTRA_HINT} ({exc})") from exc
        self._own_files: dict[str, _OwnFile] = {}
        self._references: dict[str, dict[str, Any]] = {}
        self._message_readers: dict[tuple[str, bytes], Reader] = {}

    # ------------------------------------------------------------------------------------ writing

    def _schema_text(self, schema: Schema | None) -> tuple[str, str]:
        if schema is None:
            raise DataError(
                "ProtobufConverter needs a schema, and this value has none; use JsonConverter with "
                "schemas.enable=false for schemaless data, or give the records a schema"
            )
        made = self._from_connect.protobuf_file_of(schema, self._options)
        text: str = self._descriptors.schema_text_of(made.proto)
        if text not in self._own_files:
            # Built here, before anything is registered: a file Protobuf refuses never reaches the registry.
            file = self._descriptors.build_file(made.proto, {})
            bounded_put(self._own_files, text, _OwnFile(file, made.message_name), self.settings.schemas_cache_size)
        return text, made.message_name

    def _record_name(self, schema_text: str) -> str:
        proto = self._descriptors.file_proto_of(schema_text)
        if not proto.message_type:
            raise DataError("the Protobuf schema declares no message")
        first = proto.message_type[0].name
        return f"{proto.package}.{first}" if proto.package else str(first)

    def _encoder(self, schema: Schema | None, writer_text: str, own_text: str) -> Encode:
        assert schema is not None  # refused by _schema_text
        own = self._own_files.get(own_text)
        message_name = own.message_name if own is not None else self._record_name(own_text)
        if own is not None and writer_text == own_text:
            file = own.file
        else:  # use.latest.version: the subject's latest file, its message of the same name (else its first)
            file = self._descriptors.build_file(self._descriptors.file_proto_of(writer_text), {})
        try:
            descriptor = file.pool.FindMessageTypeByName(message_name)
        except KeyError:
            descriptor = self._descriptors.message_at(file, [0])
        indexes = encode_indexes(self._descriptors.indexes_of(descriptor))
        message_class = self._descriptors.message_class(descriptor)
        if schema.type is not SchemaType.STRUCT:
            convert = self._values.compile_root_scalar(schema, descriptor)

            def encode_primitive(value: Any) -> bytes:
                message = message_class()
                message.value = convert(value)
                serialized: bytes = message.SerializeToString()
                return indexes + serialized

            return encode_primitive
        fill = self._values.compile_struct_filler(schema, descriptor)

        def encode(value: Any) -> bytes:
            message = message_class()
            fill(message, value)
            serialized: bytes = message.SerializeToString()
            return indexes + serialized

        return encode

    # ------------------------------------------------------------------------------------ reading

    def _schema_by_id(self, schema_id: int) -> str:
        # `serialized`: the descriptor, not .proto source (which Python cannot parse without protoc).
        fetched = self.client.fetch_by_id(schema_id, self.schema_type, fmt="serialized")
        referenced: dict[str, Any] = {}
        self._resolve(fetched.references, referenced)
        bounded_put(self._references, fetched.schema_str, referenced, self.settings.schemas_cache_size)
        return fetched.schema_str

    def _resolve(self, references: Sequence[tuple[str, str, int]], into: dict[str, Any]) -> None:
        for name, subject, version in references:
            if name in into or self._descriptors.is_builtin(name):
                continue
            fetched = self.client.fetch_version(subject, version, fmt="serialized")
            into[name] = self._descriptors.file_proto_of(fetched.schema_str, name)
            self._resolve(fetched.references, into)

    def _reader(self, schema_text: str, version: int | None) -> Reader:
        proto = self._descriptors.file_proto_of(schema_text)
        file = self._descriptors.build_file(proto, self._references.get(schema_text, {}))
        return _FileReader(None, _no_decode, file=file, version=version)

    def _framed_reader(self, topic: str, value: bytes) -> tuple[Reader, int]:
        """The reader of the message a framed value names (its schema id and message indexes), and where its
        payload starts."""
        schema_id = wire.schema_id_of(value, topic)
        indexes, start = decode_indexes(value, topic)
        key = (topic, bytes(value[1:start]))
        reader = self._message_readers.get(key)
        if reader is None:
            file_reader = self._readers.get((topic, schema_id)) or self._new_reader(topic, schema_id)
            assert isinstance(file_reader, _FileReader)
            part = "key" if self._is_key else "value"
            try:
                descriptor = self._descriptors.message_at(file_reader.file, indexes)
                schema = self._to_connect.connect_schema_of(descriptor, self._options, file_reader.version)
                reader = Reader(schema, self._decoder(schema, descriptor, start))
            except DataError as exc:
                raise DataError(f"{self._read_failure(topic)}: the {part} schema with id {schema_id}: {exc}") from None
            bounded_put(self._message_readers, key, reader, self.settings.schemas_cache_size)
        return reader, start

    def _decoder(self, schema: Schema, descriptor: Any, start: int) -> Any:
        message_class = self._descriptors.message_class(descriptor)
        parse = message_class.FromString
        if schema.type is SchemaType.STRUCT:
            read = self._values.compile_struct_reader(schema, descriptor, self._options)
        else:  # a top-level wrapper read as its primitive
            read = _wrapped_value
        decode_error = self._descriptors.DecodeError
        name = descriptor.full_name

        def decode(value: bytes) -> Any:
            try:
                message = parse(value[start:])
            except decode_error as exc:
                raise ValueError(f"not a valid {name} message: {exc}") from None
            return read(message)

        return decode


def _no_decode(value: bytes) -> Any:
    raise DataError("a Protobuf value is read by the reader of its message")  # pragma: no cover


def _wrapped_value(message: Any) -> Any:
    return message.value
