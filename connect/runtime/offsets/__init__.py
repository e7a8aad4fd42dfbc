"""Source offsets: where source tasks have got to, stored the way Kafka Connect stores them.

- `store`: the `OffsetStore` protocol (bytes keys and values); the stores are `connect.runtime.stores`';
- `codec`: the key/value encoding (`["<connector>", {partition}]` → offset JSON), shared with the herder's
  offsets API;
- `reader`: the `OffsetReader` a connector's tasks and the connector itself read through;
- `submitted`: which offsets are committable, i.e. acknowledged by Kafka in order per source partition.
"""

from connect.runtime.offsets.codec import decode_key, decode_offset, encode_key, encode_offset
from connect.runtime.offsets.reader import OffsetStorageReader
from connect.runtime.offsets.store import OffsetStore
from connect.runtime.offsets.submitted import SubmittedBatch, SubmittedRecords

__all__ = [
    "OffsetStorageReader",
    "OffsetStore",
    "SubmittedBatch",
    "SubmittedRecords",
    "decode_key",
    "decode_offset",
    "encode_key",
    "encode_offset",
]
