"""`schema.compatibility`: whether a new value schema starts a new file or is projected into the open one.

Storage-common's semantics on Arrow schemas. With Connect schema versions (Struct values from a
schema registry), BACKWARD/FULL start a new file for a newer version and project older records into
the open file's schema; FORWARD does the opposite. Without versions (schemaless JSON), "newer" means
"has fields the other lacks". Anything that cannot be projected (a type changed, a required field is
missing) starts a new file in every mode, and NONE starts one on any change. Pure, any thread.
"""

from __future__ import annotations

import enum

import pyarrow as pa
import pyarrow.compute as pc


class Change(enum.Enum):
    SAME = "same"
    PROJECT = "project"
    ROTATE = "rotate"


def decide(
    mode: str,
    current: pa.Schema | None,
    current_version: int | None,
    incoming: pa.Schema,
    incoming_version: int | None,
) -> Change:
    """What to do with records of `incoming` when the open file has `current` (None: no open file)."""
    if current is None or incoming.equals(current):
        return Change.SAME
    if mode == "NONE":
        return Change.ROTATE
    if current_version is not None and incoming_version is not None and current_version != incoming_version:
        incoming_is_newer = incoming_version > current_version
    else:
        incoming_is_newer = _is_superset(incoming, current)
        if not incoming_is_newer and not _is_superset(current, incoming):
            return Change.ROTATE
    newer_wins = mode in ("BACKWARD", "FULL")
    if incoming_is_newer == newer_wins:
        return Change.ROTATE
    return Change.PROJECT if projectable(incoming, current) else Change.ROTATE


def _is_superset(big: pa.Schema, small: pa.Schema) -> bool:
    return len(big) > len(small) and all(big.get_field_index(f.name) >= 0 for f in small) and projectable(big, small)


def projectable(source: pa.Schema, target: pa.Schema) -> bool:
    """Rows of `source` fit `target`: shared fields have projectable types, missing ones are nullable."""
    return _fields_projectable(list(source), list(target))


def _fields_projectable(source: list[pa.Field], target: list[pa.Field]) -> bool:
    by_name = {f.name: f for f in source}
    for field in target:
        found = by_name.get(field.name)
        if found is None:
            if not field.nullable:
                return False
        elif not _type_projectable(found.type, field.type):
            return False
    return True


def _type_projectable(source: pa.DataType, target: pa.DataType) -> bool:
    if source.equals(target):
        return True
    if pa.types.is_struct(source) and pa.types.is_struct(target):
        return _fields_projectable(list(source), list(target))
    return False


def project(table: pa.Table, target: pa.Schema) -> pa.Table:
    """`table` with exactly `target`'s columns: missing ones null, extra ones dropped (nested too)."""
    columns = [_project_column(table, field) for field in target]
    return pa.Table.from_arrays(columns, schema=target)


def _project_column(table: pa.Table, field: pa.Field) -> pa.Array:
    if field.name not in table.column_names:
        return pa.nulls(table.num_rows, field.type)
    column = table.column(field.name).combine_chunks()
    return _project_array(column, field.type)


def _project_array(array: pa.Array, target: pa.DataType) -> pa.Array:
    if array.type.equals(target):
        return array
    if pa.types.is_struct(array.type) and pa.types.is_struct(target):
        children = []
        for field in target:
            index = array.type.get_field_index(field.name)
            if index < 0:
                children.append(pa.nulls(len(array), field.type))
            else:
                children.append(_project_array(pc.struct_field(array, [index]), field.type))
        return pa.StructArray.from_arrays(children, fields=list(target), mask=pc.is_null(array))
    return array.cast(target)
