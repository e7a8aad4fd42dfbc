"""Which columns an event carries (`column.include.list` / `column.exclude.list`, regular expressions on
`schema.table.column`) and which make its key (`message.key.columns`), as Debezium's `TableSchemaBuilder`
and `Key.CustomKeyMapper` decide: a filtered-out column leaves the event's rows, never its key.

`message.key.columns` is `<table regex>:<column>,<column>;<table regex>:<column>...`; each `<table>.<column>`
pair is a regular expression on `schema.table.column`, and a table's key is the columns they match, pair by
pair, each pair's in the table's order; a table none matches keeps its primary key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from connectors.cdc.filters import matches_any, patterns
from connectors.cdc.postgres.events import TableInfo

# Debezium's `CustomKeyMapper.MSG_KEY_COLUMNS_PATTERN`, for each `;`-separated part.
KEY_COLUMNS_PART = re.compile(r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$")


def key_columns_problem(value: str) -> str | None:
    """Why `value` is no `message.key.columns` list, or None."""
    for part in value.split(";"):
        if not KEY_COLUMNS_PART.match(part):
            return f"'{part}' is not <table regex>:<column>[,<column>...]"
    return None


@dataclass(frozen=True)
class ColumnFilter:
    include: str = ""
    exclude: str = ""

    def excluded(self, table: TableInfo) -> frozenset[str]:
        """The columns of `table` its events leave out of `before` and `after`."""
        included, excluded = patterns(self.include), patterns(self.exclude)
        left_out = set()
        for column in table.columns:
            name = f"{table.schema}.{table.name}.{column.name}"
            if (included and not matches_any(included, name)) or matches_any(excluded, name):
                left_out.add(column.name)
        return frozenset(left_out)


@dataclass(frozen=True)
class KeyColumns:
    spec: str = ""

    def _pairs(self) -> list[re.Pattern[str]]:
        found: list[re.Pattern[str]] = []
        for part in self.spec.split(";"):
            if ":" not in part:
                continue
            table, columns = part.split(":", 1)
            found += [re.compile(f"{table}.{column.strip()}", re.IGNORECASE) for column in columns.split(",")]
        return found

    def of(self, table: TableInfo) -> tuple[str, ...]:
        """The key columns of `table`: those `message.key.columns` names, else its primary key."""
        chosen: list[str] = []
        for pair in self._pairs():
            chosen += [c.name for c in table.columns if pair.fullmatch(f"{table.schema}.{table.name}.{c.name}")]
        return tuple(chosen) or table.key_columns
