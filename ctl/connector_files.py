"""Connector definitions read by `apply` and `validate`: a file or `-` for stdin, in one of three shapes.

JSON `{"name": ..., "config": {...}}` (the body of `POST /connectors`), a flat JSON map holding `name`,
or Java `.properties` holding `name` (as `connect-standalone` reads connector files). JSON scalars become
strings the way Kafka's Jackson reads them into a `Map<String, String>`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connect.runtime.config.java_properties import parse_properties
from ctl.errors import UsageError


@dataclass(frozen=True)
class ConnectorDefinition:
    """A connector's name and its config (which holds `name` too, as Kafka's GET config answers it)."""

    name: str
    config: dict[str, str]


def read_definition(source: str, name: str | None = None) -> ConnectorDefinition:
    """Read `source` (a path or `-`); `name` overrides the file's. UsageError if unreadable or nameless."""
    text = _read_text(source)
    config = _parse(text, source)
    chosen = name or config.get("name")
    if not chosen:
        raise UsageError(f"{_label(source)} names no connector: add a 'name' or pass --name")
    return ConnectorDefinition(chosen, {**config, "name": chosen})


def _read_text(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        data = Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"Cannot read {source}: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def _parse(text: str, source: str) -> dict[str, str]:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"{_label(source)} is not valid JSON: {exc}") from exc
        return _from_json(document, source)
    try:
        return parse_properties(text)
    except ValueError as exc:
        raise UsageError(f"{_label(source)} is not a valid properties file: {exc}") from exc


def _from_json(document: Any, source: str) -> dict[str, str]:
    if not isinstance(document, dict):
        raise UsageError(f"{_label(source)} must hold a JSON object")
    if isinstance(document.get("config"), dict):
        config = _string_map(document["config"], source)
        if isinstance(document.get("name"), str):
            config.setdefault("name", document["name"])
        return config
    return _string_map(document, source)


def _string_map(raw: dict[Any, Any], source: str) -> dict[str, str]:
    config: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, bool):
            config[str(key)] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            config[str(key)] = str(value)
        elif value is not None:
            raise UsageError(f"{_label(source)}: the value of '{key}' must be a string, number or boolean")
    return config


def _label(source: str) -> str:
    return "stdin" if source == "-" else source
