"""Partitioners: which directory (encoded partition) each record's row goes to, and the time extractors.

`Partitioner` is the plug-in interface for users' own partitioners (entry point group
`kconnect.spark_partitioners`); `load_partitioner` resolves `partitioner.class`.
"""

from spark_sink.partitioners.base import Labels, Partitioner, PartitionInput, TimestampExtractor
from spark_sink.partitioners.extractor_loader import load_timestamp_extractor
from spark_sink.partitioners.loader import load_partitioner

__all__ = [
    "Labels",
    "PartitionInput",
    "Partitioner",
    "TimestampExtractor",
    "load_partitioner",
    "load_timestamp_extractor",
]
