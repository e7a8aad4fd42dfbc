"""Java `SimpleDateFormat` patterns, which Kafka's TimestampRouter and TimestampConverter take, in Python.

Supports the common letters: y, M (numeric and names), d, D, H, h, k, K, m, s, S, a, E, Z, X, z and
'quoted' literals; always in UTC, as those SMTs use. Immutable after construction; any thread.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable

from connect.api.errors import ConfigError, DataError

_LETTERS = "GyYMLdDEuaHhkKmsSzZXw"
_TOKEN = re.compile(r"'((?:[^']|'')*)'|''|([A-Za-z])\2*|[^A-Za-z']+")


def _tokens(pattern: str) -> list[tuple[str, int, str]]:
    """(letter or "" for a literal, repeat count, literal text)."""
    tokens: list[tuple[str, int, str]] = []
    pos = 0
    while pos < len(pattern):
        match = _TOKEN.match(pattern, pos)
        if match is None:
            raise ConfigError(f"Unterminated quote in date format: {pattern}")
        text = match.group(0)
        if match.group(1) is not None:
            tokens.append(("", 0, match.group(1).replace("''", "'")))
        elif text == "''":
            tokens.append(("", 0, "'"))
        elif match.group(2) is not None:
            letter = match.group(2)
            if letter not in _LETTERS:
                raise ConfigError(f"Illegal pattern character '{letter}' in date format: {pattern}")
            tokens.append((letter, len(text), ""))
        else:
            tokens.append(("", 0, text))
        pos = match.end()
    return tokens


def _number(value: int, count: int) -> str:
    return str(value).zfill(count)


def _offset(count: int, letter: str) -> str:
    # Always UTC here.
    if letter == "X":
        return "Z"
    if letter == "z":
        return "UTC"
    return "+0000"


def _formatter(letter: str, count: int) -> Callable[[dt.datetime], str]:
    if letter in ("y", "Y"):
        return lambda t: _number(t.year % 100, 2) if count == 2 else _number(t.year, count)
    if letter in ("M", "L"):
        if count >= 4:
            return lambda t: calendar.month_name[t.month]
        if count == 3:
            return lambda t: calendar.month_abbr[t.month]
        return lambda t: _number(t.month, count)
    simple: dict[str, Callable[[dt.datetime], int]] = {
        "d": lambda t: t.day,
        "D": lambda t: t.timetuple().tm_yday,
        "H": lambda t: t.hour,
        "k": lambda t: t.hour or 24,
        "K": lambda t: t.hour % 12,
        "h": lambda t: t.hour % 12 or 12,
        "m": lambda t: t.minute,
        "s": lambda t: t.second,
        "S": lambda t: t.microsecond // 1000,
        "u": lambda t: t.isoweekday(),
        "w": lambda t: t.isocalendar()[1],
    }
    if letter in simple:
        get = simple[letter]
        return lambda t: _number(get(t), count)
    if letter == "E":
        return lambda t: calendar.day_name[t.weekday()] if count >= 4 else calendar.day_abbr[t.weekday()]
    if letter == "a":
        return lambda t: "AM" if t.hour < 12 else "PM"
    if letter == "G":
        return lambda t: "AD"
    return lambda t: _offset(count, letter)


_NUMERIC_GROUPS = {"y": "y", "Y": "y", "d": "d", "D": "D", "H": "H", "k": "H", "h": "h", "K": "h", "m": "m", "s": "s"}
_OTHER_PARTS = {
    "a": r"(?P<a>[AaPp][Mm])",
    "E": r"[A-Za-z]+",
    "G": r"[A-Za-z]+",
    "u": r"\d",
    "w": r"\d{1,2}",
    "z": r"(?P<z>[A-Za-z]{1,5}|[+-]\d{2}:?\d{2})",
    "Z": r"(?P<z>[+-]\d{4}|Z)",
    "X": r"(?P<z>Z|[+-]\d{2}(?::?\d{2})?)",
}


def _parse_part(letter: str, count: int) -> str:
    """The regex for one pattern letter; a repeated letter means a fixed width, so abutting fields parse."""
    if letter in ("M", "L"):
        return r"(?P<M>\d{1,2})" if count == 1 else r"(?P<M>\d{2})" if count == 2 else r"(?P<MN>[A-Za-z]+)"
    if letter in ("y", "Y") and count == 2:
        return r"(?P<yy>\d{2})"
    if letter == "S":
        return r"(?P<S>\d{1,9})" if count == 1 else rf"(?P<S>\d{{{count}}})"
    if letter in _NUMERIC_GROUPS:
        width = r"{1,9}" if count == 1 else f"{{{count}}}"
        return rf"(?P<{_NUMERIC_GROUPS[letter]}>\d{width})"
    return _OTHER_PARTS[letter]


class JavaDateFormat:
    """One SimpleDateFormat pattern: `format(datetime) -> str` and `parse(str) -> datetime`, UTC."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tokens = _tokens(pattern)
        self._formatters: list[Callable[[dt.datetime], str] | str] = [
            text if not letter else _formatter(letter, count) for letter, count, text in tokens
        ]
        regex = []
        seen: set[str] = set()
        for letter, count, text in tokens:
            if not letter:
                regex.append(re.escape(text))
                continue
            part = _parse_part(letter, count)
            group = re.search(r"\?P<(\w+)>", part)
            if group is not None:
                if group.group(1) in seen:
                    part = re.sub(r"\?P<\w+>", "?:", part)
                seen.add(group.group(1))
            regex.append(part)
        self._regex = re.compile("".join(regex), re.IGNORECASE)

    def format(self, value: dt.datetime) -> str:
        utc = value.astimezone(dt.UTC) if value.tzinfo else value
        return "".join(f if isinstance(f, str) else f(utc) for f in self._formatters)

    def parse(self, text: str) -> dt.datetime:
        match = self._regex.fullmatch(text.strip())
        if match is None:
            raise DataError(f"Could not parse timestamp: value ({text}) does not match pattern ({self.pattern})")
        parts = match.groupdict()
        try:
            return self._build(parts)
        except (ValueError, OverflowError) as exc:
            raise DataError(
                f"Could not parse timestamp: value ({text}) does not match pattern ({self.pattern})"
            ) from exc

    def _build(self, parts: dict[str, str | None]) -> dt.datetime:
        year = 1970
        if parts.get("y") is not None:
            year = int(str(parts["y"]))
        elif parts.get("yy") is not None:
            year = 2000 + int(str(parts["yy"]))
        month = 1
        if parts.get("M") is not None:
            month = int(str(parts["M"]))
        elif parts.get("MN") is not None:
            month = _month_number(str(parts["MN"]))
        day = int(str(parts["d"])) if parts.get("d") is not None else 1
        hour = int(str(parts["H"])) if parts.get("H") is not None else 0
        if parts.get("h") is not None:
            hour = int(str(parts["h"])) % 12
            if (parts.get("a") or "").upper() == "PM":
                hour += 12
        elif (parts.get("a") or "").upper() == "PM" and hour < 12:
            hour += 12
        minute = int(str(parts["m"])) if parts.get("m") is not None else 0
        second = int(str(parts["s"])) if parts.get("s") is not None else 0
        millis = int(str(parts["S"])) if parts.get("S") is not None else 0
        result = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.UTC)
        if parts.get("D") is not None and parts.get("d") is None and parts.get("M") is None:
            result = result.replace(month=1, day=1) + dt.timedelta(days=int(str(parts["D"])) - 1)
        result += dt.timedelta(milliseconds=millis)
        zone = parts.get("z")
        if zone and zone.upper() not in ("Z", "UTC", "GMT"):
            offset = _zone_offset(zone)
            result -= offset
        return result


def _month_number(name: str) -> int:
    lowered = name.lower()
    for number in range(1, 13):
        if calendar.month_name[number].lower() == lowered or calendar.month_abbr[number].lower() == lowered:
            return number
    raise ValueError(f"Unknown month {name}")


def _zone_offset(zone: str) -> dt.timedelta:
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})?", zone)
    if match is None:
        raise ValueError(f"Unknown time zone {zone}")
    sign = -1 if match.group(1) == "-" else 1
    return sign * dt.timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0))
