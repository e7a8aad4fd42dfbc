"""`FieldOffsets`: a column of source offsets `{field: n}` built only for the records that need one.

A `SourceRecordBatch` carries one source offset per record, but the runtime reads only the last one
unless it has to build records; the first-party sources (file positions, datagen sequence numbers)
hand it this sequence instead of a dict per record. Any thread; immutable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload


class FieldOffsets(Sequence[dict[str, Any]]):
    """The offsets `{field: number}` for each of `numbers`, made when indexed."""

    __slots__ = ("field", "numbers")

    def __init__(self, field: str, numbers: Sequence[int]) -> None:
        self.field = field
        self.numbers = numbers

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | Sequence[dict[str, Any]]:
        if isinstance(index, slice):
            return FieldOffsets(self.field, self.numbers[index])
        return {self.field: self.numbers[index]}

    def __len__(self) -> int:
        return len(self.numbers)
