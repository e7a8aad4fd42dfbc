"""Splitting a byte buffer into complete lines, with the byte position after each line.

Line ends are those of Kafka's FileStreamSourceTask: `\\n`, `\\r` and `\\r\\n` (exactly what
`bytes.splitlines` knows). A trailing `\\r` is held back because a `\\n` may follow in the next read.
The work is done on whole buffers by C-level string methods: the source task calls this on chunks of
a megabyte, and a Python-level loop per line would cost more than everything else in the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import overload

from connect.api import Utf8Strings

ENCODING = "utf-8"


class LineEnds(Sequence[int]):
    """The stream position just after each of `lines` (their bytes), each ended by one `\\n` byte, whose
    first starts at `base`: worked out from the lines' lengths when indexed. The runtime reads only a
    batch's last offset, which takes one C-level sum over the lines; building every position up front
    (`bytes.splitlines` and a running sum) took an eighth of the source task's time at 100 B a line."""

    __slots__ = ("_all", "_base", "_cursor", "_last", "_lines")

    def __init__(self, lines: Sequence[bytes], base: int) -> None:
        self._lines = lines
        self._base = base
        self._last: int | None = None
        self._all: list[int] | None = None
        self._cursor = (0, base)  # (line index, its stream position): where the last `part` ended

    @property
    def last(self) -> int:
        """The position after the last line."""
        if self._last is None:
            self._last = self._base + sum(map(len, self._lines)) + len(self._lines)
        return self._last

    def grown(self, lines: Sequence[bytes]) -> LineEnds:
        """The ends of `lines`, which start with this one's lines (more were read after them)."""
        ends = LineEnds(lines, self._base)
        ends._cursor = self._cursor
        return ends

    def part(self, start: int, end: int) -> LineEnds:
        """The ends of lines[start:end]; parts are taken in order, each starting where the previous ended."""
        index, position = self._cursor
        if start != index:
            raise ValueError(f"lines from {start} asked for, where the previous part ended at {index}")
        part = LineEnds(self._lines[start:end], position)
        self._cursor = (end, part.last)
        return part

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, int) and index in (-1, len(self._lines) - 1) and self._lines:
            return self.last
        if self._all is None:
            self._all = list(accumulate((len(line) + 1 for line in self._lines), initial=self._base))
            del self._all[0]
        return self._all[index]


@dataclass(frozen=True, slots=True)
class SplitLines:
    """Complete lines decoded from a buffer, and where each one ends in the stream."""

    lines: list[str] | Utf8Strings
    """The lines; ASCII ones as their bytes (`Utf8Strings`), which the String converter sends as they are."""
    ends: list[int] | LineEnds
    """Byte position in the stream just after each line's terminator (what the offset stores)."""
    consumed: int
    """Bytes of the buffer that the complete lines and their terminators took; the rest is a partial line."""


def split_lines(data: bytes, start: int) -> SplitLines:
    """The complete lines of `data`, whose first byte is at stream position `start`."""
    has_cr = b"\r" in data
    if not has_cr:
        cut = data.rfind(b"\n") + 1
    else:
        # A final \r may be the first half of \r\n: keep it (and its line) for the next read.
        limit = len(data) - 1 if data.endswith(b"\r") else len(data)
        cut = max(data.rfind(b"\n", 0, limit), data.rfind(b"\r", 0, limit)) + 1
    if cut == 0:
        return SplitLines([], [], 0)
    complete = data[:cut] if cut < len(data) else data
    if not has_cr and complete.isascii():
        encoded = complete.split(b"\n")
        encoded.pop()  # the empty bytes after the final \n
        return SplitLines(Utf8Strings(encoded), LineEnds(encoded, start), cut)
    ends = list(accumulate(map(len, complete.splitlines(keepends=True)), initial=start))
    del ends[0]
    if has_cr:
        lines = complete.decode(ENCODING, "replace").splitlines()
        if len(lines) != len(ends):
            # str.splitlines also breaks at \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029; bytes only at \r, \n.
            lines = [line.decode(ENCODING, "replace") for line in complete.splitlines()]
    else:
        lines = complete.decode(ENCODING, "replace").split("\n")
        lines.pop()  # the empty string after the final \n
    return SplitLines(lines, ends, cut)
