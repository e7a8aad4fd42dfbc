"""Debezium's name filters: comma-separated regular expressions, each matched against a whole name and
regardless of case (`io.debezium.function.Predicates.includes`)."""

from __future__ import annotations

import re
from collections.abc import Sequence


def patterns(text: str) -> list[re.Pattern[str]]:
    return [re.compile(part.strip(), re.IGNORECASE) for part in text.split(",") if part.strip()]


def matches_any(found: Sequence[re.Pattern[str]], name: str) -> bool:
    return any(pattern.fullmatch(name) for pattern in found)
