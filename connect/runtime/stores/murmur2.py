"""Java Kafka's default partitioner for keyed records: `toPositive(murmur2(key)) % partitions`.

The offsets topic is shared with Java workers in spirit: an offset record must land in the partition a
Java worker would pick, so that compaction keeps one record per key and both read the same history.
The internal producer gets this from librdkafka (`partitioner=murmur2_random`); a source task's own
transactional producer (exactly-once path) does not use that partitioner, so it passes the partition
computed here. Pure functions, any thread.
"""

from __future__ import annotations

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2` as a signed 32-bit int."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    rest = length % 4
    if rest == 3:
        h ^= data[whole + 2] << 16
    if rest >= 2:
        h ^= data[whole + 1] << 8
    if rest >= 1:
        h ^= data[whole]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def key_partition(key: bytes, partitions: int) -> int:
    """The partition Java's producer (and librdkafka's murmur2 partitioner) chooses for `key`."""
    if partitions < 1:
        raise ValueError(f"partitions must be positive, got {partitions}")
    return (murmur2(key) & 0x7FFFFFFF) % partitions
