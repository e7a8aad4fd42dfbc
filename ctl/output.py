"""How `kconnect ctl` prints: borderless tables (kcctl's look), JSON or YAML of the REST answers."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import yaml

FORMATS = ("table", "json", "yaml")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns two spaces apart, no borders; headers in upper case."""
    cells = [[str(header).upper() for header in headers], *[[_cell(value) for value in row] for row in rows]]
    widths = [max(len(row[column]) for row in cells) for column in range(len(headers))]
    lines = ["  ".join(value.ljust(width) for value, width in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return str(value)


def render(data: Any, output: str, as_table: Callable[[Any], str]) -> str:
    """`data` as `output` asks: the command's own table, or the data as JSON or YAML."""
    if output == "json":
        return json.dumps(data, indent=2)
    if output == "yaml":
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip("\n")
    return as_table(data)


def key_values(pairs: Sequence[tuple[str, object]], indent: str = "") -> str:
    """`Key:  value` lines aligned on the values (the top of `describe`)."""
    width = max((len(key) for key, _ in pairs), default=0) + 1
    return "\n".join(f"{indent}{(key + ':').ljust(width)}  {_cell(value)}".rstrip() for key, value in pairs)
