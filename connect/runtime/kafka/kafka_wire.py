"""Kafka's request/response framing for the few requests the worker sends itself (`group_eviction.py`,
`kafka_sasl.py`).

Non-flexible versions only (request header v1, response header v0): a request is a 4-byte size, then
api key, api version, correlation id and client id, then the body; the answer is a 4-byte size, the
correlation id, then the body. Strings carry an int16 length (-1: null), arrays an int32 count.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable
from types import TracebackType


def int8(value: int) -> bytes:
    return struct.pack(">b", value)


def int32(value: int) -> bytes:
    return struct.pack(">i", value)


def bytes_(value: bytes) -> bytes:
    return int32(len(value)) + value


def string(value: str) -> bytes:
    encoded = value.encode()
    return struct.pack(">h", len(encoded)) + encoded


def nullable_string(value: str | None) -> bytes:
    return struct.pack(">h", -1) if value is None else string(value)


def array(items: Iterable[bytes]) -> bytes:
    encoded = list(items)
    return int32(len(encoded)) + b"".join(encoded)


class Reader:
    """Reads an answer's fields in order; struct.error if the answer is shorter than its fields."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def _take(self, layout: str) -> int:
        (value,) = struct.unpack_from(layout, self._data, self._at)
        self._at += struct.calcsize(layout)
        return int(value)

    def int16(self) -> int:
        return self._take(">h")

    def int32(self) -> int:
        return self._take(">i")

    def int64(self) -> int:
        return self._take(">q")

    def nullable_string(self) -> str | None:
        length = self.int16()
        if length < 0:
            return None
        value = self._data[self._at : self._at + length]
        self._at += length
        return value.decode()

    def string(self) -> str:
        return self.nullable_string() or ""

    def bytes_(self) -> bytes:
        length = self.int32()
        if length < 0:
            return b""
        value = self._data[self._at : self._at + length]
        self._at += length
        return value


class KafkaConnection:
    """One connection to one broker; requests are sent one at a time."""

    def __init__(self, sock: socket.socket, client_id: str) -> None:
        self._sock = sock
        self._client_id = client_id
        self._correlation = 0

    def request(self, api_key: int, version: int, body: bytes) -> Reader:
        self._correlation += 1
        header = struct.pack(">hhi", api_key, version, self._correlation) + nullable_string(self._client_id)
        message = header + body
        self._sock.sendall(int32(len(message)) + message)
        answer = Reader(self._receive(Reader(self._receive(4)).int32()))
        correlation = answer.int32()
        if correlation != self._correlation:
            raise OSError(f"answer to request {correlation} where {self._correlation} was expected")
        return answer

    def _receive(self, size: int) -> bytes:
        chunks: list[bytes] = []
        while size > 0:
            chunk = self._sock.recv(min(size, 65536))
            if not chunk:
                raise OSError("the broker closed the connection")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> KafkaConnection:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
