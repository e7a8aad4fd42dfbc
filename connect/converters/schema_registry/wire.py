"""Confluent's wire format: a zero magic byte, the schema's registry id as 4 big-endian bytes, then the
payload (an Avro binary datum here). Pure functions, any thread."""

from __future__ import annotations

from connect.api.errors import DataError

MAGIC_BYTE = 0
HEADER_SIZE = 5


def header(schema_id: int) -> bytes:
    """The 5 bytes that precede every payload written with the schema `schema_id`."""
    return bytes((MAGIC_BYTE,)) + schema_id.to_bytes(4, "big")


def schema_id_of(data: bytes, topic: str) -> int:
    """The schema id a framed value names; DataError for bytes not in the wire format."""
    if len(data) < HEADER_SIZE or data[0] != MAGIC_BYTE:
        raise DataError(
            f"Failed to deserialize data for topic {topic}: Unknown magic byte! The value does not start with "
            f"Confluent's Schema Registry framing (a zero byte and a 4-byte schema id), so it was not written by "
            f"a Schema Registry serializer or converter (first bytes: {bytes(data[:HEADER_SIZE]).hex() or 'none'})"
        )
    return int.from_bytes(data[1:HEADER_SIZE], "big")
