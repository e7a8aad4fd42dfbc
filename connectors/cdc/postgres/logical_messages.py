"""`pg_logical_emit_message` messages as Debezium's PostgreSQL connector writes them (`LogicalDecodingMessageMonitor`,
`PostgresSchemaFactory`): an `op=m` record to `<topic.prefix>.message`, keyed by the message's prefix, its content
as `binary.handling.mode` says, with the `source` block of the message's position (schema and table "").

A transactional message is one of its transaction's events (with transaction metadata counted, as Debezium
counts it, under a name of its own: `message_collection`); a non-transactional one stands alone, outside any
transaction: no txId, the last commit time seen, and it counts as a commit of its own. `message.prefix.include.list` /
`message.prefix.exclude.list` (regular expressions, whole prefix, any case) choose which are written.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable

from connect.api.data import Schema, SchemaType, Struct
from connectors.cdc.envelope import TRANSACTION_BLOCK
from connectors.cdc.filters import matches_any, patterns
from connectors.cdc.postgres.events import ChangeRecord
from connectors.cdc.postgres.pgoutput import LogicalMessage
from connectors.cdc.postgres.source_info import SOURCE_SCHEMA
from connectors.cdc.postgres.types import BinaryMode

TOPIC_SUFFIX = ".message"
# Debezium counts a transactional message under `String.valueOf` of a new `LogicalDecodingMessageId`, a class
# with no toString of its own: Java's `<class>@<identity hash in hex>`, so each message is a data collection of
# its own with a name no other process can predict. kconnect writes the same shape (`message_collection`).
MESSAGE_ID_CLASS = "io.debezium.connector.postgresql.LogicalDecodingMessageMonitor$LogicalDecodingMessageId"


def message_collection() -> str:
    """The name a transactional message is counted under in its transaction's END record and offsets."""
    return f"{MESSAGE_ID_CLASS}@{secrets.randbits(31):x}"


_OPTIONAL_STRING = Schema(SchemaType.STRING, optional=True)


def _struct(name: str, fields: list[tuple[str, Schema]]) -> Schema:
    return Schema(SchemaType.STRUCT, name=name, version=1, fields=Schema.struct(fields).fields)


KEY_SCHEMA = _struct("io.debezium.connector.postgresql.MessageKey", [("prefix", _OPTIONAL_STRING)])

_CONTENT: dict[BinaryMode, Callable[[bytes], object]] = {
    BinaryMode.BYTES: bytes,
    BinaryMode.BASE64: lambda data: base64.b64encode(data).decode(),
    BinaryMode.BASE64_URL_SAFE: lambda data: base64.urlsafe_b64encode(data).decode(),
    BinaryMode.HEX: lambda data: data.hex(),
}


class MessageRecords:
    """The records of one connector's messages."""

    def __init__(self, topic: str, binary: BinaryMode = BinaryMode.BYTES) -> None:
        self.topic = topic
        self._content = _CONTENT[binary]
        content = Schema(SchemaType.BYTES if binary is BinaryMode.BYTES else SchemaType.STRING, optional=True)
        self.block_schema = _struct(
            "io.debezium.connector.postgresql.Message", [("prefix", _OPTIONAL_STRING), ("content", content)]
        )
        self.value_schema = _struct(
            "io.debezium.connector.postgresql.MessageValue",
            [
                ("op", Schema(SchemaType.STRING)),
                ("ts_ms", Schema(SchemaType.INT64, optional=True)),
                ("source", SOURCE_SCHEMA),
                ("transaction", TRANSACTION_BLOCK),
                ("message", self.block_schema),
            ],
        )

    def record(self, message: LogicalMessage, source: Struct, processed_ms: int) -> ChangeRecord:
        """The `op=m` record of `message`; `processed_ms`: when it was processed (the value's `ts_ms`)."""
        key = Struct(KEY_SCHEMA, {"prefix": message.prefix})
        block = Struct(self.block_schema, {"prefix": message.prefix, "content": self._content(message.content)})
        value = Struct(
            self.value_schema,
            {"op": "m", "ts_ms": processed_ms, "source": source, "transaction": None, "message": block},
        )
        return ChangeRecord(self.topic, KEY_SCHEMA, key, self.value_schema, value)


class PrefixFilter:
    """`message.prefix.include.list` / `message.prefix.exclude.list`."""

    def __init__(self, include: str = "", exclude: str = "") -> None:
        self._included, self._excluded = patterns(include), patterns(exclude)

    def includes(self, prefix: str) -> bool:
        if self._included:
            return matches_any(self._included, prefix)
        return not matches_any(self._excluded, prefix)
