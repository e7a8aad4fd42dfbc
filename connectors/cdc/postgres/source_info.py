"""The `source` block of PostgreSQL change events (`io.debezium.connector.postgresql.Source`), field for
field as Debezium's `PostgresSourceInfoStructMaker` writes it: where a change came from (server, database,
schema, table), when its transaction committed, its transaction id and WAL positions, and whether it is a
row of a snapshot. Debezium leaves `snapshot` unset for streamed changes and every converter then writes
the field's default, "false"; it is written here outright, which reads the same."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import orjson

from connect.api.data import Schema, SchemaType, Struct

SOURCE_SCHEMA_NAME = "io.debezium.connector.postgresql.Source"
CONNECTOR = "postgresql"
# The logical type Debezium gives enumerations, and the values its `snapshot` field allows.
ENUM_NAME = "io.debezium.data.Enum"
_OPTIONAL_INT64 = Schema(SchemaType.INT64, optional=True)
_OPTIONAL_STRING = Schema(SchemaType.STRING, optional=True)


class SnapshotMark(enum.Enum):
    """Debezium's `snapshot` values: where a row sits in a snapshot; FALSE for streamed changes."""

    TRUE = "true"
    FIRST = "first"
    FIRST_IN_DATA_COLLECTION = "first_in_data_collection"
    LAST_IN_DATA_COLLECTION = "last_in_data_collection"
    LAST = "last"
    FALSE = "false"
    INCREMENTAL = "incremental"


SNAPSHOT_SCHEMA = Schema(
    SchemaType.STRING,
    optional=True,
    default=SnapshotMark.FALSE.value,
    name=ENUM_NAME,
    version=1,
    parameters={"allowed": ",".join(mark.value for mark in SnapshotMark)},
)

SOURCE_SCHEMA = Schema(
    SchemaType.STRUCT,
    name=SOURCE_SCHEMA_NAME,
    version=1,
    fields=Schema.struct(
        [
            ("version", Schema(SchemaType.STRING)),
            ("connector", Schema(SchemaType.STRING)),
            ("name", Schema(SchemaType.STRING)),
            ("ts_ms", Schema(SchemaType.INT64)),
            ("snapshot", SNAPSHOT_SCHEMA),
            ("db", Schema(SchemaType.STRING)),
            ("sequence", _OPTIONAL_STRING),
            ("ts_us", _OPTIONAL_INT64),
            ("ts_ns", _OPTIONAL_INT64),
            ("schema", Schema(SchemaType.STRING)),
            ("table", Schema(SchemaType.STRING)),
            ("txId", _OPTIONAL_INT64),
            ("lsn", _OPTIONAL_INT64),
            ("xmin", _OPTIONAL_INT64),
            ("origin", _OPTIONAL_STRING),
            ("origin_lsn", _OPTIONAL_INT64),
        ]
    ).fields,
)


@dataclass(frozen=True)
class ChangePosition:
    """Where one change sits: its transaction, its WAL position and the commit it belongs to."""

    commit_time_us: int  # microseconds since the Unix epoch: the transaction's commit (a snapshot: the read)
    tx_id: int | None
    lsn: int | None  # the change's own position
    commit_lsn: int | None  # the last commit before or at it (`lsn_commit` of the offset)
    xmin: int | None = None
    origin: str | None = None
    origin_lsn: int | None = None


def sequence(commit_lsn: int | None, lsn: int | None) -> str:
    """Debezium's `sequence`: a JSON array of the commit's and the change's LSN as decimal strings, which
    orders events across transactions (consumers deduplicate on it)."""
    return orjson.dumps([None if x is None else str(x) for x in (commit_lsn, lsn)]).decode()


@dataclass(frozen=True)
class SourceInfo:
    """The fixed part of every event's `source`: the connector's version, `topic.prefix` and database."""

    version: str
    server: str
    database: str

    def struct(
        self, schema: str, table: str, position: ChangePosition, snapshot: SnapshotMark = SnapshotMark.FALSE
    ) -> Struct:
        incremental = snapshot is SnapshotMark.INCREMENTAL  # Debezium leaves txId, lsn and xmin out of these
        return Struct(
            SOURCE_SCHEMA,
            {
                "version": self.version,
                "connector": CONNECTOR,
                "name": self.server,
                "ts_ms": position.commit_time_us // 1000,
                "snapshot": snapshot.value,
                "db": self.database,
                "sequence": sequence(position.commit_lsn, position.lsn),
                "ts_us": position.commit_time_us,
                "ts_ns": position.commit_time_us * 1000,
                "schema": schema,
                "table": table,
                "txId": None if incremental else position.tx_id,
                "lsn": None if incremental else position.lsn,
                "xmin": None if incremental else position.xmin,
                "origin": position.origin,
                "origin_lsn": position.origin_lsn,
            },
        )
