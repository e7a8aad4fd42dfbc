"""Protobuf descriptors for the ProtobufConverter: the registry's schema text (a base64
`FileDescriptorProto`, the form Confluent's serializers send and Apicurio stores) turned into a
descriptor pool of its own, with the well-known files (`google/protobuf/*`, `google/type/*`,
`confluent/*`) that registries resolve without references, and message classes made from it.

One pool per registered schema: files of different schemas may share a name ("default"), and a pool
refuses a second, different file of the same name. Imported only by the converter once configured
(google.protobuf is part of the `registry` extra). Pure functions, any thread.
"""

from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Mapping
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FileDescriptor
from google.protobuf.message import DecodeError

from connect.api.errors import DataError

__all__ = ["DecodeError", "build_file", "file_proto_of", "indexes_of", "is_builtin", "message_at", "message_class"]

# The modules whose files registries and Confluent's serializers treat as built in (Confluent's `_is_builtin`).
_WELL_KNOWN = "any api descriptor duration empty field_mask source_context struct timestamp type wrappers"
_GOOGLE_TYPES = (
    "calendar_period color date datetime dayofweek expr fraction latlng money month postal_address quaternion timeofday"
)
_BUILTIN_MODULES = (
    *(f"google.protobuf.{name}_pb2" for name in _WELL_KNOWN.split()),
    *(f"google.type.{name}_pb2" for name in _GOOGLE_TYPES.split()),
    "confluent_kafka.schema_registry.confluent.meta_pb2",
    "confluent_kafka.schema_registry.confluent.type.decimal_pb2",
)


@cache
def builtin_files() -> Mapping[str, bytes]:
    """The serialized well-known files by their import path (`google/protobuf/timestamp.proto`, ...)."""
    files: dict[str, bytes] = {}
    for module_name in _BUILTIN_MODULES:
        try:
            module: Any = importlib.import_module(module_name)
        except ImportError:  # an older googleapis-common-protos without some google.type file
            continue
        files[module.DESCRIPTOR.name] = module.DESCRIPTOR.serialized_pb
    return files


def field_meta_extension() -> Any:
    """Confluent's `confluent.field_meta` extension of FieldOptions (the `params` ProtobufData reads)."""
    return importlib.import_module("confluent_kafka.schema_registry.confluent.meta_pb2").field_meta


def is_builtin(file_name: str) -> bool:
    return file_name.startswith(("google/protobuf/", "google/type/", "confluent/"))


def file_proto_of(schema_text: str, name: str = "default") -> descriptor_pb2.FileDescriptorProto:
    """The file a registry's Protobuf schema text holds; DataError when it is not a base64 descriptor."""
    proto = descriptor_pb2.FileDescriptorProto()
    try:
        proto.ParseFromString(base64.b64decode(schema_text.encode("ascii"), validate=True))
    except (binascii.Error, UnicodeEncodeError, DecodeError, ValueError):
        raise DataError(
            "the registry returned the Protobuf schema as text that is not a base64 FileDescriptorProto "
            "(kconnect reads Protobuf schemas in the registry's 'serialized' format, not as .proto source)"
        ) from None
    if not proto.name:
        proto.name = name
    return proto


def schema_text_of(proto: descriptor_pb2.FileDescriptorProto) -> str:
    """The registry text of a file: its serialized descriptor in base64, as Confluent's serializers send it."""
    return base64.standard_b64encode(proto.SerializeToString()).decode("ascii")


def build_file(
    proto: descriptor_pb2.FileDescriptorProto, referenced: Mapping[str, descriptor_pb2.FileDescriptorProto]
) -> FileDescriptor:
    """The file in a new pool, with its imports: `referenced` (by import path) or well-known files."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()
    builtins = builtin_files()

    def add(file_name: str, serialized: bytes, dependencies: list[str]) -> None:
        if file_name in added:
            return
        added.add(file_name)
        for dependency in dependencies:
            if dependency in referenced:
                ref = referenced[dependency]
                add(dependency, ref.SerializeToString(), list(ref.dependency))
            elif dependency in builtins:
                dep_proto = descriptor_pb2.FileDescriptorProto.FromString(builtins[dependency])
                add(dependency, builtins[dependency], list(dep_proto.dependency))
            else:
                raise DataError(f"the schema imports {dependency}, which is neither a reference nor a well-known file")
        pool.AddSerializedFile(serialized)

    try:
        add(proto.name, proto.SerializeToString(), list(proto.dependency))
        return pool.FindFileByName(proto.name)
    except DataError:
        raise
    except Exception as exc:  # the pool's own check of the file (unknown types, duplicate names, ...)
        raise DataError(f"the Protobuf schema is not valid: {exc}") from None


def message_at(file: FileDescriptor, indexes: list[int]) -> Descriptor:
    """The message a message-index path names; DataError when the file has no such message."""
    candidates = list(file.message_types_by_name.values())
    descriptor: Descriptor | None = None
    for index in indexes:
        if not 0 <= index < len(candidates):
            raise DataError(
                f"message index {index} of the path {indexes} is out of range: the schema has {len(candidates)} "
                f"message(s) there"
            )
        descriptor = candidates[index]
        candidates = list(descriptor.nested_types)
    if descriptor is None:
        raise DataError("an empty message-index path")
    return descriptor


def indexes_of(descriptor: Descriptor) -> list[int]:
    """The message-index path of a message in its file."""
    path: list[int] = []
    current = descriptor
    while current.containing_type is not None:
        parent = current.containing_type
        path.append(list(parent.nested_types).index(current))
        current = parent
    path.append(list(current.file.message_types_by_name.values()).index(current))
    return path[::-1]


def message_class(descriptor: Descriptor) -> Any:
    return message_factory.GetMessageClass(descriptor)
