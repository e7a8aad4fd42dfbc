"""The records Debezium writes beside the change events, with its schemas (`io.debezium.schema.SchemaFactory`):

- heartbeats, to `__debezium-heartbeat.<topic.prefix>`: key `ServerNameKey {serverName}`, value
  `Heartbeat {ts_ms}`; their source offset is the connector's current one, which is what lets Connect
  commit it (and the slot move) while only tables that are not captured change;
- transaction boundaries, to `<topic.prefix>.transaction` with `provide.transaction.metadata`: key
  `TransactionMetadataKey {id}`, value `TransactionMetadataValue {status, id, event_count,
  data_collections: [{data_collection, event_count}], ts_ms}`, BEGIN without the counts, END with them.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.api.data import Schema, SchemaType, Struct


def _struct(name: str, fields: list[tuple[str, Schema]], *, optional: bool = False) -> Schema:
    return Schema(SchemaType.STRUCT, optional=optional, name=name, version=1, fields=Schema.struct(fields).fields)


_STRING, _INT64 = Schema(SchemaType.STRING), Schema(SchemaType.INT64)
HEARTBEAT_KEY_SCHEMA = _struct("io.debezium.connector.common.ServerNameKey", [("serverName", _STRING)])
HEARTBEAT_VALUE_SCHEMA = _struct("io.debezium.connector.common.Heartbeat", [("ts_ms", _INT64)])
TRANSACTION_KEY_SCHEMA = _struct("io.debezium.connector.common.TransactionMetadataKey", [("id", _STRING)])
EVENT_COUNT_SCHEMA = _struct("event.collection", [("data_collection", _STRING), ("event_count", _INT64)], optional=True)
TRANSACTION_VALUE_SCHEMA = _struct(
    "io.debezium.connector.common.TransactionMetadataValue",
    [
        ("status", _STRING),
        ("id", _STRING),
        ("event_count", Schema(SchemaType.INT64, optional=True)),
        ("data_collections", Schema(SchemaType.ARRAY, optional=True, value_schema=EVENT_COUNT_SCHEMA)),
        ("ts_ms", _INT64),
    ],
)


def heartbeat(server: str, now_ms: int) -> tuple[Struct, Struct]:
    """The key and value of a heartbeat of connector `server` (its topic.prefix)."""
    return Struct(HEARTBEAT_KEY_SCHEMA, {"serverName": server}), Struct(HEARTBEAT_VALUE_SCHEMA, {"ts_ms": now_ms})


def transaction_begin(transaction_id: str, commit_ms: int) -> tuple[Struct, Struct]:
    key = Struct(TRANSACTION_KEY_SCHEMA, {"id": transaction_id})
    return key, Struct(TRANSACTION_VALUE_SCHEMA, {"status": "BEGIN", "id": transaction_id, "ts_ms": commit_ms})


def transaction_end(transaction_id: str, commit_ms: int, per_table: Mapping[str, int]) -> tuple[Struct, Struct]:
    """`per_table`: the transaction's event count per `schema.table`, in the order the tables came."""
    collections = [
        Struct(EVENT_COUNT_SCHEMA, {"data_collection": table, "event_count": count})
        for table, count in per_table.items()
    ]
    value = {
        "status": "END",
        "id": transaction_id,
        "event_count": sum(per_table.values()),
        "data_collections": collections,
        "ts_ms": commit_ms,
    }
    return Struct(TRANSACTION_KEY_SCHEMA, {"id": transaction_id}), Struct(TRANSACTION_VALUE_SCHEMA, value)
