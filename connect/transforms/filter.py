"""Filter: drop every record (use it with a predicate to drop only some)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.transform import R
from connect.transforms.base import BuiltinTransformation


class Filter(BuiltinTransformation[R]):
    """Drops all records, filtering them from subsequent transformations in the chain."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def apply(self, record: R) -> R | None:
        return None
