"""Splitting a byte buffer into complete lines, with the byte position after each line.

Line ends are those of Kafka's FileStreamSourceTask: `\\n`, `\\r` and `\\r\\n` (exactly what
`bytes.splitlines` knows). A trailing `\\r` is held back because a `\\n` may follow in the next read.
The work is done on whole buffers by C-level string methods: the source task calls this on chunks of
a megabyte, and a Python-level loop per line would cost more than everything else in the task.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

ENCODING = "utf-8"


@dataclass(frozen=True, slots=True)
class SplitLines:
    """Complete lines decoded from a buffer, and where each one ends in the stream."""

    lines: list[str]
    ends: list[int]
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
