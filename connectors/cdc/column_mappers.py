"""Debezium's column mappers (`io.debezium.relational.mapping.ColumnMappers`): values of chosen columns
truncated, masked with asterisks, or replaced by a salted hash, in the `before` and `after` of change events
(never in keys), with a parameter on the column's schema saying so.

Keys, each naming the columns as comma-separated regular expressions on `<schema>.<table>.<column>`:

- `column.truncate.to.<N>.chars`: strings (and bytes) longer than N are cut to N (`TruncateColumn`); the
  schema gets `truncateLength=N` where the column may be longer than N.
- `column.mask.with.<N>.chars`: every value of a character column, null included, becomes N asterisks
  (`MaskStrings`); the schema gets `masked=true` whatever the column's type.
- `column.mask.hash.<algorithm>.with.salt.<salt>` and `column.mask.hash.v2.<algorithm>.with.salt.<salt>`: a
  character column's value becomes the hex digest of the salt followed by the value, cut to the column's
  length (`MaskStrings.HashValueConverter`). Version 1 digests the value as Java serializes a String
  (`ObjectOutputStream`), version 2 its UTF-8 bytes; the algorithm is a Java `MessageDigest` name.

A column several keys name takes the first of them, in the order Debezium registers them: truncations,
then masks, then v1 hashes, then v2 hashes (and by key within each kind).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from connectors.cdc.filters import matches_any, patterns

TRUNCATE_KEY = re.compile(r"column\.truncate\.to\.(\d+)\.chars")
MASK_KEY = re.compile(r"column\.mask\.with\.(\d+)\.chars")
HASH_KEY = re.compile(r"column\.mask\.hash\.(?P<algorithm>[^.]+)\.with\.salt\.(?P<salt>.+)")
HASH_V2_KEY = re.compile(r"column\.mask\.hash\.v2\.(?P<algorithm>[^.]+)\.with\.salt\.(?P<salt>.+)")
MAPPER_PREFIXES = ("column.truncate.", "column.mask.")

# Java's MessageDigest names (and the SUN provider's aliases), as hashlib names them.
_DIGESTS = {
    "MD5": "md5",
    "SHA-1": "sha1",
    "SHA": "sha1",
    "SHA1": "sha1",
    "SHA-224": "sha224",
    "SHA224": "sha224",
    "SHA-256": "sha256",
    "SHA256": "sha256",
    "SHA-384": "sha384",
    "SHA384": "sha384",
    "SHA-512": "sha512",
    "SHA512": "sha512",
    "SHA-512/224": "sha512_224",
    "SHA512/224": "sha512_224",
    "SHA-512/256": "sha512_256",
    "SHA512/256": "sha512_256",
    "SHA3-224": "sha3_224",
    "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384",
    "SHA3-512": "sha3_512",
}

Convert = Callable[[Any], Any]


@dataclass(frozen=True)
class MappedColumn:
    """What a mapper needs to know of a column: whether JDBC calls it a character type, and its length as
    Debezium's PostgreSQL connector derives it (pgjdbc's precision: 2147483647 for text)."""

    character: bool
    length: int


class ColumnMapper(Protocol):
    def parameters(self, column: MappedColumn) -> dict[str, str]: ...

    def converter(self, column: MappedColumn) -> Convert | None: ...


@dataclass(frozen=True)
class Truncate:
    length: int

    def _possible(self, column: MappedColumn) -> bool:
        return column.length < 0 or column.length > self.length

    def parameters(self, column: MappedColumn) -> dict[str, str]:
        return {"truncateLength": str(self.length)} if self._possible(column) else {}

    def converter(self, column: MappedColumn) -> Convert | None:
        return self.cut if self._possible(column) else None

    def cut(self, value: Any) -> Any:
        if isinstance(value, str):
            return value[: self._java_chars(value)]
        if isinstance(value, bytes | bytearray) and len(value) > self.length:
            return bytes(value[: self.length])
        return value

    def _java_chars(self, value: str) -> int:
        """How many Python characters make the first `length` Java chars (UTF-16 units) of `value`."""
        if value.isascii():
            return self.length
        units = 0
        for index, char in enumerate(value):
            units += 2 if ord(char) > 0xFFFF else 1
            if units > self.length:
                return index
        return len(value)


@dataclass(frozen=True)
class Mask:
    chars: int

    def parameters(self, column: MappedColumn) -> dict[str, str]:
        return {"masked": "true"}

    def converter(self, column: MappedColumn) -> Convert | None:
        mask = "*" * self.chars
        return (lambda _value: mask) if column.character else None


@dataclass(frozen=True)
class Hash:
    algorithm: str  # hashlib's name
    salt: bytes
    v2: bool

    def parameters(self, column: MappedColumn) -> dict[str, str]:
        return {"masked": "true"}

    def converter(self, column: MappedColumn) -> Convert | None:
        if not column.character:
            return None
        cut = Truncate(column.length).cut if column.length > 0 else None

        def digest(value: Any) -> Any:
            if value is None:
                return None
            data = str(value).encode() if self.v2 else java_serialized(str(value))
            hashed = hashlib.new(self.algorithm, self.salt + data).hexdigest()
            return cut(hashed) if cut is not None else hashed

        return digest


def java_serialized(value: str) -> bytes:
    """`ObjectOutputStream.writeObject(value)` of a String: the stream header, then TC_STRING and the value in
    modified UTF-8 with a 2-byte length (TC_LONGSTRING and an 8-byte length past 65535 bytes)."""
    encoded = modified_utf8(value)
    header = b"\xac\xed\x00\x05"
    if len(encoded) <= 0xFFFF:
        return header + b"\x74" + len(encoded).to_bytes(2, "big") + encoded
    return header + b"\x7c" + len(encoded).to_bytes(8, "big") + encoded


def modified_utf8(value: str) -> bytes:
    """Java's modified UTF-8 (`DataOutput.writeUTF`): NUL as two bytes, characters beyond the BMP as their
    two UTF-16 surrogates, each encoded on its own."""
    if value.isascii() and "\x00" not in value:
        return value.encode()
    out = bytearray()
    for unit in _utf16_units(value):
        if 0x0001 <= unit <= 0x007F:
            out.append(unit)
        elif unit <= 0x07FF:
            out += bytes((0xC0 | (unit >> 6), 0x80 | (unit & 0x3F)))
        else:
            out += bytes((0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F)))
    return bytes(out)


def _utf16_units(value: str) -> list[int]:
    data = value.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def digest_name(java_name: str) -> str | None:
    """hashlib's name of a Java `MessageDigest` algorithm, or None if it has none here."""
    return _DIGESTS.get(java_name.upper())


@dataclass(frozen=True)
class _Rule:
    columns: tuple[re.Pattern[str], ...]
    mapper: ColumnMapper


class ColumnMappers:
    """The mappers of a connector's config, and which one (if any) a column takes."""

    def __init__(self, rules: list[_Rule]) -> None:
        self._rules = rules

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> ColumnMappers:
        kinds: list[list[tuple[str, _Rule]]] = [[], [], [], []]
        for key, value in props.items():
            mapper, kind = _mapper(key)
            if mapper is not None:
                kinds[kind].append((key, _Rule(tuple(patterns(str(value))), mapper)))
        return cls([rule for rules in kinds for _key, rule in sorted(rules, key=lambda pair: pair[0])])

    def mapper_for(self, column_name: str) -> ColumnMapper | None:
        """The mapper of the column `<schema>.<table>.<column>`: the first rule naming it."""
        for rule in self._rules:
            if matches_any(rule.columns, column_name):
                return rule.mapper
        return None

    def __bool__(self) -> bool:
        return bool(self._rules)


def _mapper(key: str) -> tuple[ColumnMapper | None, int]:
    if match := TRUNCATE_KEY.fullmatch(key):
        return Truncate(int(match.group(1))), 0
    if match := MASK_KEY.fullmatch(key):
        return Mask(int(match.group(1))), 1
    if match := HASH_V2_KEY.fullmatch(key):
        algorithm = digest_name(match.group("algorithm"))
        return (Hash(algorithm, match.group("salt").encode(), v2=True), 3) if algorithm else (None, 3)
    if match := HASH_KEY.fullmatch(key):
        algorithm = digest_name(match.group("algorithm"))
        return (Hash(algorithm, match.group("salt").encode(), v2=False), 2) if algorithm else (None, 2)
    return None, 0


def mapper_key_problem(key: str) -> str | None:
    """Why `key` (starting `column.truncate.` or `column.mask.`) is no mapper key kconnect can apply."""
    if _mapper(key)[0] is not None:
        return None
    match = HASH_V2_KEY.fullmatch(key) or HASH_KEY.fullmatch(key)
    if match is None:
        return (
            f"{key} is none of column.truncate.to.<N>.chars, column.mask.with.<N>.chars and "
            "column.mask.hash[.v2].<algorithm>.with.salt.<salt>"
        )
    return f"{key}: no MessageDigest algorithm {match.group('algorithm')} here (known: {', '.join(_DIGESTS)})"
