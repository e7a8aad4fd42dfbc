"""Resolves `timestamp.extractor` to a configured instance: the short names `Wallclock`, `Record` and
`RecordField`, Confluent's `TimeBasedPartitioner$...` inner class names, or an import path. Task thread,
at start (the time-based partitioners load theirs as they are configured)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from spark_sink.config import TIMESTAMP_EXTRACTOR_CONFIG
from spark_sink.partitioners.base import TimestampExtractor
from spark_sink.partitioners.extractors import (
    RecordFieldTimestampExtractor,
    RecordTimestampExtractor,
    WallclockTimestampExtractor,
)
from spark_sink.partitioners.plugin_classes import import_class, instantiate

_EXTRACTORS: dict[str, type[TimestampExtractor]] = {
    "Wallclock": WallclockTimestampExtractor,
    "Record": RecordTimestampExtractor,
    "RecordField": RecordFieldTimestampExtractor,
}


def load_timestamp_extractor(config: Mapping[str, Any]) -> TimestampExtractor:
    name = str(config.get(TIMESTAMP_EXTRACTOR_CONFIG) or "Wallclock").strip()
    short = name.rsplit("$", 1)[-1] if "$" in name else name
    cls = _EXTRACTORS.get(short) or import_class(name, TIMESTAMP_EXTRACTOR_CONFIG)
    extractor = cast(TimestampExtractor, instantiate(cls, TimestampExtractor, name, TIMESTAMP_EXTRACTOR_CONFIG))
    extractor.configure(config)
    return extractor
