"""Confluent's `path.format`: Joda-Time patterns such as `'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH`.

Evaluated in Python, never handed to Spark or java.time, whose letters differ (`YYYY` is the week
year there, and Spark 3+ rejects week-based patterns). Joda's rules: letters repeat to set the
minimum width of numbers (two-letter years print the last two digits), three or more letters of a
month or weekday print its name, `'...'` quotes literal text and `''` is a quote. Names are English.
Compiled once per partitioner; `format` runs per time bucket, not per record.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from connect.api import ConfigError

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Field = Callable[[dt.datetime], str]


def _number(value: int, width: int) -> str:
    return f"{value:0{width}d}" if value >= 0 else "-" + f"{-value:0{width}d}"


def _year(width: int) -> Field:
    if width == 2:
        return lambda t: f"{t.year % 100:02d}"
    return lambda t: _number(t.year, width)


def _week_year(width: int) -> Field:
    if width == 2:
        return lambda t: f"{t.isocalendar().year % 100:02d}"
    return lambda t: _number(t.isocalendar().year, width)


def _month(width: int) -> Field:
    if width >= 4:
        return lambda t: _MONTHS[t.month - 1]
    if width == 3:
        return lambda t: _MONTHS[t.month - 1][:3]
    return lambda t: _number(t.month, width)


def _weekday_text(width: int) -> Field:
    if width >= 4:
        return lambda t: _WEEKDAYS[t.weekday()]
    return lambda t: _WEEKDAYS[t.weekday()][:3]


def _fraction(width: int) -> Field:
    # Joda prints the fraction truncated (not rounded) to `width` digits.
    return lambda t: f"{t.microsecond:06d}{'0' * max(0, width - 6)}"[:width]


def _offset(width: int) -> Field:
    def render(t: dt.datetime) -> str:
        if width >= 3:
            return str(t.tzinfo) if t.tzinfo is not None else "UTC"
        delta = t.utcoffset() or dt.timedelta(0)
        total = int(delta.total_seconds()) // 60
        sign = "-" if total < 0 else "+"
        hours, minutes = divmod(abs(total), 60)
        return f"{sign}{hours:02d}:{minutes:02d}" if width == 2 else f"{sign}{hours:02d}{minutes:02d}"

    return render


def _numeric(get: Callable[[dt.datetime], int]) -> Callable[[int], Field]:
    return lambda width: lambda t: _number(get(t), width)


_FIELDS: dict[str, Callable[[int], Field]] = {
    "G": lambda width: lambda t: "AD",
    "C": _numeric(lambda t: t.year // 100),
    "Y": _year,
    "y": _year,
    "u": _year,
    "x": _week_year,
    "w": _numeric(lambda t: t.isocalendar().week),
    "e": _numeric(lambda t: t.isoweekday()),
    "E": _weekday_text,
    "D": _numeric(lambda t: t.timetuple().tm_yday),
    "M": _month,
    "d": _numeric(lambda t: t.day),
    "a": lambda width: lambda t: "AM" if t.hour < 12 else "PM",
    "K": _numeric(lambda t: t.hour % 12),
    "h": _numeric(lambda t: t.hour % 12 or 12),
    "H": _numeric(lambda t: t.hour),
    "k": _numeric(lambda t: t.hour or 24),
    "m": _numeric(lambda t: t.minute),
    "s": _numeric(lambda t: t.second),
    "S": _fraction,
    "Z": _offset,
    "z": lambda width: lambda t: t.tzname() or "UTC",
}


@dataclass(frozen=True)
class PathFormat:
    """A compiled pattern; `format(local_time)` renders one directory path (no trailing '/')."""

    pattern: str
    parts: tuple[str | Field, ...]

    def format(self, local_time: dt.datetime) -> str:
        return "".join(p if isinstance(p, str) else p(local_time) for p in self.parts).rstrip("/")

    def partition_fields(self) -> list[str]:
        """Hive column names: the literal text before '=' in each '/'-separated segment."""
        names: list[str] = []
        text = "".join(p if isinstance(p, str) else "\0" for p in self.parts)
        for segment in text.split("/"):
            name, eq, _ = segment.partition("=")
            if eq and name and "\0" not in name:
                names.append(name)
        return names


def compile_path_format(pattern: str) -> PathFormat:
    """Parses a Joda pattern; ConfigError for letters Joda does not know or an unclosed quote."""
    parts: list[str | Field] = []
    literal: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                literal.append("'")
                i += 2
                continue
            end = i + 1
            while True:
                end = pattern.find("'", end)
                if end < 0:
                    raise ConfigError(f"Invalid path.format {pattern!r}: unclosed quote")
                if end + 1 < n and pattern[end + 1] == "'":
                    end += 2
                    continue
                break
            literal.append(pattern[i + 1 : end].replace("''", "'"))
            i = end + 1
        elif c.isascii() and c.isalpha():
            j = i
            while j < n and pattern[j] == c:
                j += 1
            factory = _FIELDS.get(c)
            if factory is None:
                raise ConfigError(f"Invalid path.format {pattern!r}: illegal pattern component: {c}")
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(factory(j - i))
            i = j
        else:
            literal.append(c)
            i += 1
    if literal:
        parts.append("".join(literal))
    return PathFormat(pattern, tuple(parts))
