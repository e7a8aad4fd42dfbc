"""File operations of the commit protocol, per filesystem: local (os) and Hadoop (via Spark's JVM)."""

from spark_sink.storage.base import Entry, Storage

__all__ = ["Entry", "Storage"]
