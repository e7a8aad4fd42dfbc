"""Whether Avro data written with one schema can be read with another, by Avro's schema resolution rules:
what `latest.compatibility.strict` checks before a converter writes with a subject's latest schema
(Confluent's serializers ask `latest.isBackwardCompatible(schema of the data)`: can the latest schema
read what the data's schema writes). Pure functions, any thread.
"""

from __future__ import annotations

from typing import Any

from connect.converters.schema_registry import avro_names as n

_PROMOTIONS = {
    "int": {"int", "long", "float", "double"},
    "long": {"long", "float", "double"},
    "float": {"float", "double"},
    "string": {"string", "bytes"},
    "bytes": {"bytes", "string"},
}


def read_problems(reader: Any, writer: Any) -> list[str]:
    """Why data written with `writer` cannot be read with `reader` (both parsed JSON); empty if it can."""
    return _Resolution(reader, writer).problems()


class _Resolution:
    def __init__(self, reader: Any, writer: Any) -> None:
        self.reader_root, self.writer_root = reader, writer
        self.reader_names: dict[str, Any] = {}
        self.writer_names: dict[str, Any] = {}
        _collect(reader, None, self.reader_names)
        _collect(writer, None, self.writer_names)
        self.checking: set[tuple[int, int]] = set()

    def problems(self) -> list[str]:
        found: list[str] = []
        self._check(self.reader_root, self.writer_root, "", found)
        return found

    def _named(self, schema: Any, names: dict[str, Any]) -> Any:
        if isinstance(schema, str) and schema not in n.PRIMITIVES:
            return names.get(schema) or next((v for k, v in names.items() if k.rpartition(".")[2] == schema), schema)
        if isinstance(schema, dict) and isinstance(schema.get("type"), dict | list):
            return self._named(schema["type"], names)
        if isinstance(schema, dict) and schema.get("type") not in (
            *n.PRIMITIVES,
            "record",
            "enum",
            "fixed",
            "array",
            "map",
        ):
            return self._named(schema.get("type"), names)
        return schema

    def _check(self, reader: Any, writer: Any, path: str, found: list[str]) -> None:
        reader, writer = self._named(reader, self.reader_names), self._named(writer, self.writer_names)
        key = (id(reader), id(writer))
        if key in self.checking:
            return  # a recursive type met again: the first visit decides
        self.checking.add(key)
        try:
            self._check_resolved(reader, writer, path or "the value", found)
        finally:
            self.checking.discard(key)

    def _check_resolved(self, reader: Any, writer: Any, path: str, found: list[str]) -> None:
        if isinstance(writer, list):
            for branch in writer:
                self._check(reader, branch, path, found)
            return
        if isinstance(reader, list):
            if not any(not self._probe(branch, writer, path) for branch in reader):
                found.append(f"{path}: no branch of the reader's union reads the writer's {_kind(writer)}")
            return
        reader_kind, writer_kind = _kind(reader), _kind(writer)
        if writer_kind in _PROMOTIONS and reader_kind in _PROMOTIONS[writer_kind]:
            return
        if reader_kind != writer_kind:
            found.append(f"{path}: the reader's {reader_kind} cannot read the writer's {writer_kind}")
            return
        if reader_kind in n.PRIMITIVES:
            return
        if reader_kind in ("record", "enum", "fixed") and _simple_name(reader) != _simple_name(writer):
            found.append(f"{path}: the reader's {reader_kind} {_simple_name(reader)} is not {_simple_name(writer)}")
            return
        if reader_kind == "array":
            self._check(reader["items"], writer["items"], f"{path}[]", found)
        elif reader_kind == "map":
            self._check(reader["values"], writer["values"], f"{path}{{}}", found)
        elif reader_kind == "fixed" and reader.get("size") != writer.get("size"):
            found.append(f"{path}: fixed sizes differ ({reader.get('size')} and {writer.get('size')})")
        elif reader_kind == "enum":
            missing = set(writer.get("symbols", ())) - set(reader.get("symbols", ()))
            if missing and reader.get("default") is None:
                found.append(f"{path}: the reader's enum lacks the writer's symbols {sorted(missing)}")
        elif reader_kind == "record":
            self._check_record(reader, writer, path, found)

    def _check_record(self, reader: Any, writer: Any, path: str, found: list[str]) -> None:
        written = {f["name"]: f for f in writer.get("fields", ())}
        for field in reader.get("fields", ()):
            names = [field["name"], *field.get("aliases", ())]
            source = next((written[name] for name in names if name in written), None)
            where = f"{path}.{field['name']}" if path != "the value" else field["name"]
            if source is None:
                if "default" not in field:
                    found.append(f"{where}: the reader's field has no default and the writer does not write it")
                continue
            self._check(field["type"], source["type"], where, found)

    def _probe(self, reader: Any, writer: Any, path: str) -> list[str]:
        trial: list[str] = []
        self._check(reader, writer, path, trial)
        return trial


def _kind(schema: Any) -> str:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list):
        return "union"
    return str(schema.get("type"))


def _simple_name(schema: Any) -> str:
    return str(schema.get("name", "")).rpartition(".")[2]


def _collect(schema: Any, namespace: str | None, names: dict[str, Any]) -> None:
    """Every named type of `schema` by full name."""
    if isinstance(schema, list):
        for branch in schema:
            _collect(branch, namespace, names)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if isinstance(kind, dict | list):
        _collect(kind, namespace, names)
        return
    if kind in ("record", "enum", "fixed"):
        name = str(schema.get("name", ""))
        ns = schema.get("namespace", namespace)
        full = name if "." in name or not ns else f"{ns}.{name}"
        names[full] = schema
        namespace = full.rpartition(".")[0] or None
    if kind == "record":
        for field in schema.get("fields", ()):
            _collect(field.get("type"), namespace, names)
    elif kind == "array":
        _collect(schema.get("items"), namespace, names)
    elif kind == "map":
        _collect(schema.get("values"), namespace, names)
