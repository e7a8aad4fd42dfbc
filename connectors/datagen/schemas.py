"""The quickstarts: built-in record shapes that datagen can generate, and how their values are made.

Every field of a record is a function of (seed, task, seq) alone, through a 64-bit mixing hash of the
sequence number: the same seed gives the same records, a task that restarts from a stored offset
continues the very sequence it would have produced, and a replayed record is an exact duplicate.
Payloads come from a pool built once per task, so a record costs no random generation at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from connect.api import Schema, Struct
from connect.api.data import (
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
)

_MASK64 = (1 << 64) - 1

# 64 symbols so that `bytes.translate` maps random bytes to them uniformly (256 = 4 * 64).
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_TO_ALPHABET = bytes(_ALPHABET[b % 64] for b in range(256))
_POOL_ENTRIES = 1024
_POOL_BYTES = 16 * 1024 * 1024


def mix64(x: int) -> int:
    """SplitMix64's finaliser: a cheap, well-spread 64-bit hash of `x`."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def task_salt(seed: int, task: int) -> int:
    """The per-task hash input that makes tasks (and seeds) generate different data."""
    return mix64(mix64(seed & _MASK64) ^ task)


def payload_pool(salt: int, size: int) -> list[bytes]:
    """Distinct printable ASCII payloads of `size` bytes; enough of them that a batch rarely repeats one."""
    if size == 0:
        return [b""]
    entries = max(1, min(_POOL_ENTRIES, _POOL_BYTES // size))
    blob = random.Random(salt).randbytes(entries * size).translate(_TO_ALPHABET)
    return [blob[i * size : (i + 1) * size] for i in range(entries)]


class Quickstart(Protocol):
    """Makes the values of one task's records; `values` is called on the task thread for each batch."""

    value_schema: Schema

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        """The values of the records with sequence numbers first_seq .. first_seq + count - 1."""
        ...


QuickstartFactory = Callable[[int, int, int], Quickstart]
"""(task, salt, payload size) -> Quickstart."""


def _struct_schema(name: str, *fields: tuple[str, Schema]) -> Schema:
    return Schema.struct([("seq", INT64_SCHEMA), ("task", INT32_SCHEMA), *fields], name=f"kconnect.datagen.{name}")


class PayloadQuickstart:
    """Raw BYTES values of exactly `size` bytes: what the throughput benchmarks send."""

    value_schema = BYTES_SCHEMA

    def __init__(self, task: int, salt: int, size: int) -> None:
        self._pool = payload_pool(salt, size)

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        pool, n = self._pool, len(self._pool)
        start = first_seq % n
        if start + count <= n:
            return pool[start : start + count]
        return [pool[s % n] for s in range(first_seq, first_seq + count)]


SEQUENCE_SCHEMA = _struct_schema("sequence", ("payload", STRING_SCHEMA))


class SequenceQuickstart:
    """The smallest Struct: seq, task and a string payload of `size` characters."""

    value_schema = SEQUENCE_SCHEMA

    def __init__(self, task: int, salt: int, size: int) -> None:
        self._task = task
        self._pool = [p.decode("ascii") for p in payload_pool(salt, size)]

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        schema, task, pool, n = SEQUENCE_SCHEMA, self._task, self._pool, len(self._pool)
        return [
            Struct(schema, {"seq": s, "task": task, "payload": pool[s % n]})
            for s in range(first_seq, first_seq + count)
        ]


USERS_SCHEMA = _struct_schema(
    "users",
    ("registertime", INT64_SCHEMA),
    ("userid", STRING_SCHEMA),
    ("regionid", STRING_SCHEMA),
    ("gender", STRING_SCHEMA),
)
_USER_IDS = tuple(f"User_{i}" for i in range(1, 10))
_REGION_IDS = tuple(f"Region_{i}" for i in range(1, 10))
_GENDERS = ("MALE", "FEMALE", "OTHER")
_REGISTERTIME_FROM = 1_487_715_775_521
_REGISTERTIME_SPAN = 31_557_600_000  # one year of milliseconds


class UsersQuickstart:
    """Users with a registration time, a user id, a region and a gender (Confluent's `users`)."""

    value_schema = USERS_SCHEMA

    def __init__(self, task: int, salt: int, size: int) -> None:
        self._task, self._salt = task, salt

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        return [self._one(s) for s in range(first_seq, first_seq + count)]

    def _one(self, seq: int) -> Struct:
        h = mix64(self._salt + seq)
        return Struct(
            USERS_SCHEMA,
            {
                "seq": seq,
                "task": self._task,
                "registertime": _REGISTERTIME_FROM + (h >> 20) % _REGISTERTIME_SPAN,
                "userid": _USER_IDS[h % 9],
                "regionid": _REGION_IDS[(h >> 4) % 9],
                "gender": _GENDERS[(h >> 8) % 3],
            },
        )


PAGEVIEWS_SCHEMA = _struct_schema(
    "pageviews",
    ("viewtime", INT64_SCHEMA),
    ("userid", STRING_SCHEMA),
    ("pageid", STRING_SCHEMA),
)
_PAGE_IDS = tuple(f"Page_{i}" for i in range(1, 100))


class PageviewsQuickstart:
    """Page views at generation time by one of the users (Confluent's `pageviews`)."""

    value_schema = PAGEVIEWS_SCHEMA

    def __init__(self, task: int, salt: int, size: int) -> None:
        self._task, self._salt = task, salt

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        schema, task, salt = PAGEVIEWS_SCHEMA, self._task, self._salt
        out: list[Any] = []
        for s in range(first_seq, first_seq + count):
            h = mix64(salt + s)
            out.append(
                Struct(
                    schema,
                    {
                        "seq": s,
                        "task": task,
                        "viewtime": now_ms,
                        "userid": _USER_IDS[h % 9],
                        "pageid": _PAGE_IDS[(h >> 4) % 99],
                    },
                )
            )
        return out


ADDRESS_SCHEMA = Schema.struct(
    [("city", STRING_SCHEMA), ("state", STRING_SCHEMA), ("zipcode", INT64_SCHEMA)],
    name="kconnect.datagen.orders.address",
)
ORDERS_SCHEMA = _struct_schema(
    "orders",
    ("ordertime", INT64_SCHEMA),
    ("orderid", INT64_SCHEMA),
    ("itemid", STRING_SCHEMA),
    ("orderunits", FLOAT64_SCHEMA),
    ("address", ADDRESS_SCHEMA),
)


class OrdersQuickstart:
    """Orders at generation time with an item, a quantity and a nested address (Confluent's `orders`)."""

    value_schema = ORDERS_SCHEMA

    def __init__(self, task: int, salt: int, size: int) -> None:
        self._task, self._salt = task, salt

    def values(self, first_seq: int, count: int, now_ms: int) -> list[Any]:
        return [self._one(s, now_ms) for s in range(first_seq, first_seq + count)]

    def _one(self, seq: int, now_ms: int) -> Struct:
        h = mix64(self._salt + seq)
        address = Struct(
            ADDRESS_SCHEMA,
            {"city": f"City_{1 + h % 99}", "state": f"State_{1 + (h >> 8) % 99}", "zipcode": 10000 + (h >> 16) % 90000},
        )
        return Struct(
            ORDERS_SCHEMA,
            {
                "seq": seq,
                "task": self._task,
                "ordertime": now_ms,
                "orderid": h >> 33,
                "itemid": f"Item_{1 + (h >> 4) % 999}",
                "orderunits": ((h >> 12) % 1000) / 100 + 0.01,
                "address": address,
            },
        )


QUICKSTARTS: dict[str, QuickstartFactory] = {
    "users": UsersQuickstart,
    "pageviews": PageviewsQuickstart,
    "orders": OrdersQuickstart,
    "sequence": SequenceQuickstart,
    "payload": PayloadQuickstart,
}
