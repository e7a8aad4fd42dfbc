"""Direct Struct access for the runtime's converters and transforms.

They copy every field of a struct on every record: reading and filling the value slot directly skips
`Struct.get`/`put`'s per-name schema lookup and validation. Only names of the schema's own fields may
be used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.data import Field, Schema, Struct


def raw_values(struct: Struct) -> Mapping[str, Any]:
    """The values as put, defaults not applied."""
    return struct.raw_values()


def field_value(struct: Struct, field: Field, replace_null_with_default: bool = True) -> Any:
    """`struct.get(field.name)` (default for null) or, when not replacing, the value as put."""
    value = struct.raw_values().get(field.name)
    if value is None and replace_null_with_default:
        return field.schema.default
    return value


def new_struct(schema: Schema, values: dict[str, Any]) -> Struct:
    """A Struct of `schema` holding `values`, whose keys must all be field names of `schema`."""
    # Bypasses Struct.__init__'s checks (a quarter of a JSON record's decoding time): the schema is known.
    return Struct.unchecked(schema, values)
