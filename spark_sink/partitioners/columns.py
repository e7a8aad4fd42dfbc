"""Reaching a (possibly nested, dotted) value field in a decoded Arrow table. Pure, any thread."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import DataError


def field_column(table: pa.Table, name: str) -> pa.Array:
    """The column `name`; `a.b` reaches field b of struct column a when no column is literally named `a.b`."""
    if name in table.column_names:
        return _combined(table.column(name))
    head, *rest = name.split(".")
    if head not in table.column_names or not rest:
        raise DataError(f"Field '{name}' is not in the record value (columns: {', '.join(table.column_names)})")
    column = _combined(table.column(head))
    for i, part in enumerate(rest):
        if not pa.types.is_struct(column.type) or column.type.get_field_index(part) < 0:
            reached = ".".join([head, *rest[:i]])
            raise DataError(f"Field '{name}' is not in the record value: '{reached}' has no field '{part}'")
        # struct_field gives null where the parent struct is null, as a missing nested value should.
        column = pc.struct_field(column, [part])
    return column


def _combined(column: pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
