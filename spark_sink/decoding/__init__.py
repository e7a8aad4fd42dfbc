"""Record values to Arrow tables, column-wise: JSON bytes in bulk, Connect Structs by schema, strings."""

from spark_sink.decoding.values import Segment, ValueDecoder

__all__ = ["Segment", "ValueDecoder"]
