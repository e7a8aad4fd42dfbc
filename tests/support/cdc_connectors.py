"""The configuration of kconnect's PostgreSQL CDC connector, as Debezium's keys name it, that the CDC tests
share: one database, its own slot and publication (`kc_<database>`), the test server's trusted login."""

from __future__ import annotations

from tests.fixtures.sql.plugin import SqlDatabase

CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector"


def slot_name(database: SqlDatabase) -> str:
    return f"kc_{database.name}"


def postgres_connector(database: SqlDatabase, prefix: str, tables: str, **extra: str) -> dict[str, str]:
    """`tables`: comma-separated names in schema `public`; `extra` adds or replaces keys."""
    params = database.connection_params()
    return {
        "connector.class": CONNECTOR_CLASS,
        "database.hostname": str(params["host"]),
        "database.port": str(params["port"]),
        "database.user": str(params["user"]),
        "database.dbname": database.name,
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot_name(database),
        "publication.name": slot_name(database),
        "publication.autocreate.mode": "filtered",
        "table.include.list": ",".join(f"public.{name}" for name in tables.split(",")),
        **extra,
    }
