"""Replication slots of the test PostgreSQL server: a slot keeps its database's WAL and blocks dropping
the database, so every test drops the slots it made."""

from __future__ import annotations

from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.waiting import wait_until


def drop_slot(database: SqlDatabase, name: str) -> None:
    """Drop slot `name` once its walsender has let go of it (a moment after its connection closed)."""
    query = f"SELECT active FROM pg_replication_slots WHERE slot_name = '{name}'"
    wait_until(lambda: database.rows(query) in ([], [(False,)]), 10, f"slot {name} to be released")
    if database.rows(query):
        database.execute(f"SELECT pg_drop_replication_slot('{name}')")
