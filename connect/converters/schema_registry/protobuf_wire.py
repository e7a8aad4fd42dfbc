"""The message indexes of Confluent's Protobuf wire format: after the 5-byte header, which message of the
registered file the payload is, as a path of indexes (top-level message, then nested ones) written as a
count and the indexes, all zigzag varints; the common path `[0]` (the file's first message) is the single
byte 0. Pure functions, any thread."""

from __future__ import annotations

from connect.api.errors import DataError
from connect.converters.schema_registry import wire

_MAX_INDEXES = 100_000  # more than any file holds: a longer count is corrupt data, not a schema


def _zigzag_varint(value: int) -> bytes:
    number = (value << 1) ^ (value >> 63)
    out = bytearray()
    while number & ~0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def encode_indexes(indexes: list[int]) -> bytes:
    """The bytes of a message-index path; `[0]` is the one-byte shorthand."""
    if indexes == [0]:
        return b"\x00"
    return _zigzag_varint(len(indexes)) + b"".join(_zigzag_varint(i) for i in indexes)


def _read_zigzag(data: bytes, position: int, topic: str) -> tuple[int, int]:
    number = shift = 0
    while True:
        if position >= len(data) or shift > 63:
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Protobuf: the message indexes after the schema id "
                f"are cut short or malformed"
            )
        byte = data[position]
        position += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return (number >> 1) ^ -(number & 1), position


def decode_indexes(data: bytes, topic: str) -> tuple[list[int], int]:
    """The message-index path of a framed value and where its payload starts; DataError when malformed."""
    count, position = _read_zigzag(data, wire.HEADER_SIZE, topic)
    if count == 0:
        return [0], position
    if count < 0 or count > _MAX_INDEXES:
        raise DataError(
            f"Failed to deserialize data for topic {topic} to Protobuf: invalid message index count {count}"
        )
    indexes = []
    for _ in range(count):
        index, position = _read_zigzag(data, position, topic)
        indexes.append(index)
    return indexes, position
