"""Resolves `partitioner.class` and `timestamp.extractor` to configured instances. Task thread, at start.

Accepted names: the built-in short names, Confluent's class names (the storage-common and HDFS
packages, so existing connector configs work unchanged), entry points of the group
`kconnect.spark_partitioners`, and `module:Class` (or `module.Class`) import paths.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Mapping
from typing import Any, cast

from connect.api import ConfigError
from spark_sink.config import PARTITIONER_CLASS_CONFIG, TIMESTAMP_EXTRACTOR_CONFIG
from spark_sink.partitioners.base import Partitioner, TimestampExtractor
from spark_sink.partitioners.builtin import (
    DailyPartitioner,
    DefaultPartitioner,
    FieldPartitioner,
    HourlyPartitioner,
    TimeBasedPartitioner,
)
from spark_sink.partitioners.extractors import (
    RecordFieldTimestampExtractor,
    RecordTimestampExtractor,
    WallclockTimestampExtractor,
)

ENTRY_POINT_GROUP = "kconnect.spark_partitioners"

_CONFLUENT_PACKAGES = (
    "io.confluent.connect.storage.partitioner.",
    "io.confluent.connect.hdfs.partitioner.",
    "io.confluent.connect.s3.partitioner.",
    "spark_sink.partitioners.",
    "spark_sink.partitioners.builtin.",
)
_PARTITIONERS: dict[str, type[Partitioner]] = {
    cls.__name__: cls
    for cls in (DefaultPartitioner, FieldPartitioner, TimeBasedPartitioner, HourlyPartitioner, DailyPartitioner)
}
_EXTRACTORS: dict[str, type[TimestampExtractor]] = {
    "Wallclock": WallclockTimestampExtractor,
    "Record": RecordTimestampExtractor,
    "RecordField": RecordFieldTimestampExtractor,
}


def load_partitioner(config: Mapping[str, Any]) -> Partitioner:
    name = str(config.get(PARTITIONER_CLASS_CONFIG) or "DefaultPartitioner").strip()
    cls = _PARTITIONERS.get(_strip_package(name)) or _entry_point(name) or _import(name, PARTITIONER_CLASS_CONFIG)
    partitioner = cast(Partitioner, _instantiate(cls, Partitioner, name, PARTITIONER_CLASS_CONFIG))
    partitioner.configure(config)
    return partitioner


def load_timestamp_extractor(config: Mapping[str, Any]) -> TimestampExtractor:
    name = str(config.get(TIMESTAMP_EXTRACTOR_CONFIG) or "Wallclock").strip()
    short = name.rsplit("$", 1)[-1] if "$" in name else name
    cls = _EXTRACTORS.get(short) or _import(name, TIMESTAMP_EXTRACTOR_CONFIG)
    extractor = cast(TimestampExtractor, _instantiate(cls, TimestampExtractor, name, TIMESTAMP_EXTRACTOR_CONFIG))
    extractor.configure(config)
    return extractor


def _strip_package(name: str) -> str:
    for package in _CONFLUENT_PACKAGES:
        if name.startswith(package):
            return name[len(package) :]
    return name


def _entry_point(name: str) -> object | None:
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == name:
            loaded: object = entry.load()
            return loaded
    return None


def _import(name: str, key: str) -> object:
    module_name, sep, attr = name.partition(":")
    if not sep:
        module_name, _, attr = name.rpartition(".")
    if not module_name or not attr:
        raise ConfigError(f"Invalid value {name} for configuration {key}: unknown class")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"Invalid value {name} for configuration {key}: {exc}") from None


def _instantiate(cls: object, base: type, name: str, key: str) -> object:
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"Invalid value {name} for configuration {key}: not a {base.__name__}")
    return cls()
