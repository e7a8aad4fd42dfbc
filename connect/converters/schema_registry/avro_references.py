"""Avro schemas that refer to types registered under subjects of their own (Schema Registry schema
references), made self-contained.

A serializer may register each nested record, enum or fixed under a subject of its own and the value's
schema with references to them (`{"name": "bank.Kind", "subject": "bank.Kind", "version": 1}`); the value's
schema then names `bank.Kind` without defining it. Confluent's `AvroSchemaProvider` parses such a schema
with the referenced ones as known types. Here the referenced definitions (fetched, and themselves made
self-contained, first) replace the first use of each name, in the order Avro reads a schema, so fastavro,
the reader plan and the Connect mapping see one schema as if it had been written in one piece.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

from connect.api.errors import DataError
from connect.converters.schema_registry.avro_names import PRIMITIVES
from connect.converters.schema_registry.client import Fetched

Reference = tuple[str, str, int]  # (name, subject, version)
FetchVersion = Callable[[str, int], Fetched]
_NAMED = frozenset({"record", "error", "enum", "fixed"})
# Deep enough for any real schema; bounds a chain of references that never ends.
_MAX_DEPTH = 32


def self_contained(fetched: Fetched, fetch: FetchVersion) -> str:
    """`fetched`'s schema text with every referenced type defined in place (the text itself when it has no
    references)."""
    if not fetched.references:
        return fetched.schema_str
    return json.dumps(_inline(fetched, fetch, 0), separators=(",", ":"))


def _inline(fetched: Fetched, fetch: FetchVersion, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise DataError(f"Schema references nest deeper than {_MAX_DEPTH} levels")
    referenced = _definitions(fetched.references, fetch, depth)
    return _Inliner(referenced).walk(json.loads(fetched.schema_str), None)


def _definitions(references: Sequence[Reference], fetch: FetchVersion, depth: int) -> dict[str, Any]:
    """Full name -> definition of each referenced type (and of the types its own definition names)."""
    definitions: dict[str, Any] = {}
    for name, subject, version in references:
        definition = _inline(fetch(subject, version), fetch, depth + 1)
        full = _full_name(definition, None) if isinstance(definition, dict) else None
        definitions[full or name] = definition
    return definitions


class _Inliner:
    def __init__(self, referenced: dict[str, Any]) -> None:
        self._referenced = referenced
        self._defined: set[str] = set()

    def walk(self, node: Any, namespace: str | None) -> Any:
        if isinstance(node, str):
            return self._name(node, namespace)
        if isinstance(node, list):
            return [self.walk(branch, namespace) for branch in node]
        if not isinstance(node, dict):
            return node
        kind = node.get("type")
        if kind in _NAMED:
            full = _full_name(node, namespace)
            if full is not None:
                self._defined.add(full)
            inner = (full.rpartition(".")[0] or None) if full else namespace
            if kind in ("record", "error"):
                fields = [{**field, "type": self.walk(field.get("type"), inner)} for field in node.get("fields", ())]
                return {**node, "fields": fields}
            return node
        if kind == "array":
            return {**node, "items": self.walk(node.get("items"), namespace)}
        if kind == "map":
            return {**node, "values": self.walk(node.get("values"), namespace)}
        return {**node, "type": self.walk(kind, namespace)}

    def _name(self, name: str, namespace: str | None) -> Any:
        if name in PRIMITIVES:
            return name
        full = name if "." in name or namespace is None else f"{namespace}.{name}"
        for candidate in (full, name):
            if candidate in self._defined:
                return name
            definition = self._referenced.get(candidate)
            if definition is not None:
                self._defined.add(candidate)
                # Defined here, in full: its own names resolve in its own namespace.
                return self.walk(copy.deepcopy(definition), None)
        return name


def _full_name(node: dict[str, Any], namespace: str | None) -> str | None:
    name = node.get("name")
    if not isinstance(name, str):
        return None
    if "." in name:
        return name
    own = node.get("namespace", namespace)
    return f"{own}.{name}" if own else name
