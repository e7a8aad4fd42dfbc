"""fastavro's decoded values -> Connect values, one compiled function per Avro schema (avro_to_connect.py
builds them alongside the Connect schema): records become Structs (fastavro's dict taken over as the
Struct's values), arrays of MapEntry records dicts, a general union's value the Union struct with its
branch's field set. A function is None where fastavro's value is already the Connect value. Built once
per schema id; the functions run on the task's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from connect.api.data import Schema, Struct, StructColumns
from connect.api.errors import DataError
from connect.converters.schema_registry import avro_names as n

Convert = Callable[[Any], Any]
"""fastavro's decoded value (never None) -> the Connect value; None where they are the same."""


def each(convert: Convert) -> Convert:
    return lambda items: [None if item is None else convert(item) for item in items]


def each_value(convert: Convert) -> Convert:
    return lambda entries: {k: None if v is None else convert(v) for k, v in entries.items()}


def entries(key_convert: Convert | None, value_convert: Convert | None) -> Convert:
    keys = key_convert or (lambda k: k)
    values = value_convert or (lambda v: v)

    def convert(entries: list[dict[str, Any]]) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for entry in entries:
            key, value = entry[n.KEY_FIELD], entry[n.VALUE_FIELD]
            result[None if key is None else keys(key)] = None if value is None else values(value)
        return result

    return convert


def struct_of(schema: Schema, converts: list[tuple[str, Convert]]) -> Convert:
    unchecked = Struct.unchecked
    if not converts:
        return lambda values: unchecked(schema, values)

    def convert(values: dict[str, Any]) -> Struct:
        for name, field_convert in converts:
            value = values[name]
            if value is not None:
                values[name] = field_convert(value)
        return unchecked(schema, values)

    return convert


ToColumns = Callable[[Sequence[dict[str, Any]]], StructColumns]
"""fastavro's decoded records of one record schema -> their Connect values as one list per field."""


def columns_of(schema: Schema, converts: list[tuple[str, Convert]]) -> ToColumns | None:
    """A record schema's decoded records as columns, each field converted once per column (what
    `struct_of` does per record); None for a record without fields, which columns cannot count."""
    if not schema.fields:
        return None
    by_name = dict(converts)
    plan = [(f.name, by_name.get(f.name), f.schema.default) for f in schema.fields]

    def columns(records: Sequence[dict[str, Any]]) -> StructColumns:
        result: dict[str, list[Any]] = {}
        for name, convert, default in plan:
            column = [record[name] for record in records]
            if convert is not None:
                column = [None if value is None else convert(value) for value in column]
            if default is not None:  # as Struct.get gives a null field
                column = [default if value is None else value for value in column]
            result[name] = column
        return StructColumns(schema, result)

    return columns


@dataclass(frozen=True)
class Branch:
    field: str
    kind: str
    full_name: str | None
    convert: Convert | None
    symbols: frozenset[str]


_PYTHON_KINDS: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "int": (int,),
    "long": (int,),
    "float": (float, int),
    "double": (float, int),
    "string": (str,),
    "bytes": (bytes,),
    "fixed": (bytes,),
    "array": (list,),
    "map": (dict,),
    "record": (dict,),
}


def union_of(schema: Schema, branches: list[Branch]) -> Convert:
    """A general union's value as the Union struct with the branch's field set. fastavro gives a record
    branch as (name, value) when the union has several records; other branches are told by Python type."""
    unchecked = Struct.unchecked
    by_name = {b.full_name: b for b in branches if b.full_name is not None}

    def branch_of(value: Any) -> Branch:
        for branch in branches:
            if branch.kind == "enum":
                if isinstance(value, str) and value in branch.symbols:
                    return branch
                continue
            kinds = _PYTHON_KINDS.get(branch.kind, ())
            if isinstance(value, kinds) and not (isinstance(value, bool) and branch.kind != "boolean"):
                return branch
        raise DataError(f"Did not find matching union field for data: {value!r}")

    def convert(value: Any) -> Struct:
        if isinstance(value, tuple) and len(value) == 2 and value[0] in by_name:
            branch, value = by_name[value[0]], value[1]
        else:
            branch = branch_of(value)
        converted = value if branch.convert is None else branch.convert(value)
        values = {f.name: None for f in schema.fields}
        values[branch.field] = converted
        return unchecked(schema, values)

    return convert
