"""`RecordTransformer`: the transformation chain as the record pipeline uses it, typed by its records.

`TransformationChain` is one; tests pass their own. Generic in the record type (`SourceRecord` for
source tasks, `SinkRecord` for sink tasks), so what comes out is typed as what went in.
"""

from __future__ import annotations

from typing import Protocol

from connect.api.transform import R


class RecordTransformer(Protocol[R]):
    def apply_batch(self, records: list[R]) -> list[R]:
        """The transformed records, dropped ones left out."""
        ...

    def close(self) -> None: ...
