"""Helpers shared by the built-in transforms: Kafka's `Requirements`, `SchemaUtil`, a schema cache.

Pure functions plus `SchemaCache`, which each transform instance owns (one task thread).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.data import Field, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connect.api.records import SinkRecord, SourceRecord

REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"


def define_replace_null_with_default(definition: ConfigDef) -> ConfigDef:
    return definition.define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.MEDIUM,
        "Whether to replace fields that have a default value and that are null to the default value. "
        "When set to true, the default value is used, otherwise null is used.",
    )


def require_map(value: Any, purpose: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise DataError(f"Only Map objects supported in absence of schema for [{purpose}], found: {_type_name(value)}")
    return dict(value)


def require_map_or_none(value: Any, purpose: str) -> dict[str, Any] | None:
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Struct:
    if not isinstance(value, Struct):
        raise DataError(f"Only Struct objects supported for [{purpose}], found: {_type_name(value)}")
    return value


def require_struct_or_none(value: Any, purpose: str) -> Struct | None:
    return None if value is None else require_struct(value, purpose)


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema


def require_sink_record(record: SourceRecord | SinkRecord, purpose: str) -> SinkRecord:
    if not isinstance(record, SinkRecord):
        raise DataError(f"Only SinkRecord supported for [{purpose}], found: {type(record).__name__}")
    return record


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def copy_schema(schema: Schema, **changes: Any) -> Schema:
    """A copy of `schema` with some attributes changed (Kafka's SchemaUtil.copySchemaBasics and more)."""
    attrs = {
        "type": schema.type,
        "optional": schema.optional,
        "default": schema.default,
        "name": schema.name,
        "version": schema.version,
        "doc": schema.doc,
        "parameters": schema.parameters,
        "fields": schema.fields,
        "key_schema": schema.key_schema,
        "value_schema": schema.value_schema,
    }
    attrs.update(changes)
    return Schema(**attrs)


def struct_schema_like(schema: Schema, fields: list[tuple[str, Schema]]) -> Schema:
    """A STRUCT schema with the name, version, doc, parameters and optionality of `schema` and new fields."""
    names = [name for name, _ in fields]
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise DataError(f"Cannot create field because of field name duplication {duplicate}")
    return Schema(
        SchemaType.STRUCT,
        optional=schema.optional,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=tuple(Field(name, i, s) for i, (name, s) in enumerate(fields)),
    )


def optional_of(schema: Schema) -> Schema:
    return schema if schema.optional else schema.as_optional()


class SchemaCache:
    """Derived schemas by source schema object (schemas with Mapping parameters are not hashable).

    Keeps the source schema alive in the entry so its id cannot be reused while cached.
    """

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._entries: dict[int, tuple[Schema, Any]] = {}

    def get_or_build(self, schema: Schema, build: Callable[[Schema], Any]) -> Any:
        hit = self._entries.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        built = build(schema)
        if len(self._entries) >= self._size:
            del self._entries[next(iter(self._entries))]
        self._entries[id(schema)] = (schema, built)
        return built


_JAVA_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z][A-Za-z0-9]*)>")
_JAVA_GROUP_REF = re.compile(r"\\(.)|\$\{([A-Za-z][A-Za-z0-9]*)\}|\$(\d)")


def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """A Java regex as Python's re: named groups `(?<name>...)` become `(?P<name>...)`."""
    return re.compile(_JAVA_NAMED_GROUP.sub(r"(?P<\1>", pattern))


def java_replacement(replacement: str) -> str:
    """A Java `Matcher.replaceFirst` replacement (`$1`, `${name}`, `\\$`) as a Python `re.sub` template."""

    def convert(match: re.Match[str]) -> str:
        escaped, name, number = match.groups()
        if escaped is not None:
            return "\\\\" if escaped == "\\" else escaped
        return f"\\g<{name if name is not None else number}>"

    return _JAVA_GROUP_REF.sub(convert, replacement)
