"""The key of a table with no primary key: its first unique index with no function or expression column,
as Debezium's `readTableUniqueIndices` walks pgjdbc's index rows."""

from __future__ import annotations

from connectors.cdc.postgres.catalog import first_unique_index


def test_the_first_index_wins_with_its_columns_in_index_order() -> None:
    rows = [("a_idx", 2, "code"), ("a_idx", 1, "region"), ("b_idx", 1, "email")]
    assert first_unique_index(rows) == ("region", "code")


def test_an_index_with_a_function_or_an_expression_column_is_passed_over_whole() -> None:
    rows = [
        ("a_lower", 1, "lower(email)"),
        ("b_mixed", 1, "region"),
        ("b_mixed", 2, "(code + 1)"),
        ("c_email", 1, "email"),
    ]
    assert first_unique_index(rows) == ("email",)


def test_no_usable_index_means_no_key() -> None:
    assert first_unique_index([]) == ()
    assert first_unique_index([("a", 1, "upper(name)")]) == ()
