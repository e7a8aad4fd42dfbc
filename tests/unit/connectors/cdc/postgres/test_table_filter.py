"""Debezium's include and exclude lists: comma-separated regular expressions, each matching a whole name
regardless of case, system schemas never captured."""

from __future__ import annotations

from connectors.cdc.postgres.catalog import TableFilter


def test_patterns_match_whole_names_regardless_of_case() -> None:
    assert TableFilter(table_include="Public.Items").captures("public", "items")
    assert not TableFilter(table_include="public.item").captures("public", "items")
    assert not TableFilter(schema_exclude="PUBLIC").captures("public", "items")
    assert TableFilter(schema_include="sales, public").captures("public", "items")


def test_system_schemas_are_never_captured() -> None:
    assert not TableFilter().captures("pg_catalog", "pg_class")
    assert not TableFilter(table_include=".*").captures("information_schema", "tables")
