"""Hive-style `name=value` path segments, escaped as Hive and Spark escape partition values.

Readers (Spark, Hive, pyarrow's `partitioning="hive"`) unescape `%XX`, so a value holding '/' or '='
stays one directory and reads back unchanged. Pure functions, any thread.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

# Hive's FileUtils.charToEscape (also Spark's ExternalCatalogUtils): control chars and "#%'*/:=?\{[]^.
_SPECIAL = frozenset(chr(c) for c in range(0x20)) | frozenset("\"#%'*/:=?\\\x7f{[]^")
_SPECIAL_PATTERN = "[" + "".join(f"\\x{ord(c):02x}" for c in sorted(_SPECIAL)) + "]"

NULL_VALUE = "null"
"""What a null field value becomes in a path, as in Confluent's FieldPartitioner."""


def escape(value: str) -> str:
    if not any(c in _SPECIAL for c in value):
        return value
    return "".join(f"%{ord(c):02X}" if c in _SPECIAL else c for c in value)


def escape_array(values: pa.Array) -> pa.Array:
    """`escape` over a string array; a no-op (no copy) when no value needs escaping, the usual case."""
    values = pc.fill_null(values, NULL_VALUE)
    if not pc.any(pc.match_substring_regex(values, _SPECIAL_PATTERN)).as_py():
        return values
    unique = pc.unique(values)
    escaped = pa.array([escape(v) for v in unique.to_pylist()], pa.string())
    return pc.take(escaped, pc.index_in(values, value_set=unique))


def segment(name: str, value: str) -> str:
    return f"{escape(name)}={escape(value)}"
