"""Resolves `partitioner.class` to a configured instance (`timestamp.extractor`: `extractor_loader`). Task
thread, at start.

Accepted names: the built-in short names, Confluent's class names (the storage-common and HDFS
packages, so existing connector configs work unchanged), entry points of the group
`kconnect.spark_partitioners`, and `module:Class` (or `module.Class`) import paths.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from typing import Any, cast

from spark_sink.config import PARTITIONER_CLASS_CONFIG
from spark_sink.partitioners.base import Partitioner
from spark_sink.partitioners.builtin import (
    DailyPartitioner,
    DefaultPartitioner,
    FieldPartitioner,
    HourlyPartitioner,
    TimeBasedPartitioner,
)
from spark_sink.partitioners.plugin_classes import import_class, instantiate

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


def load_partitioner(config: Mapping[str, Any]) -> Partitioner:
    name = str(config.get(PARTITIONER_CLASS_CONFIG) or "DefaultPartitioner").strip()
    cls = _PARTITIONERS.get(_strip_package(name)) or _entry_point(name) or import_class(name, PARTITIONER_CLASS_CONFIG)
    partitioner = cast(Partitioner, instantiate(cls, Partitioner, name, PARTITIONER_CLASS_CONFIG))
    partitioner.configure(config)
    return partitioner


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
