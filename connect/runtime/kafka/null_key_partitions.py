"""The partition a whole batch of records without keys goes to, chosen once for the batch.

Left to librdkafka (`rd_kafka_produce_batch` with no partition), every message of a batch runs its
partitioner: about 90 ns of the task thread a record, 40 % of the batch call at 100 B
(docs/performance.md, "One partition a batch"). Given a partition, the batch skips it. For records
without a key, librdkafka's random-for-null-keys partitioners (the default `consistent_random`,
`murmur2_random`, `fnv1a_random`, `random`) stick to one random partition for
`sticky.partitioning.linger.ms`, and Kafka's Java producer sticks to one until its batch is full
(KIP-480, KIP-794): consecutive records share a partition and the stream spreads over the topic. One
partition per poll batch, a random one of those that have a leader, keeps both properties.

The partitions come from a metadata request (`lookup`, a round trip on the task thread), kept for
`REFRESH_S`, as a producer keeps its metadata for a while (Java: `metadata.max.age.ms`). The first batch
to a topic waits up to `FIRST_WAIT_S` for them, as Java's producer waits for a topic's metadata before
its first send (`max.block.ms`): left to librdkafka's partitioner while its topic was still being
created, the first record of a new topic was seen to land after the rest of its batch (3 times in 62
runs of a secured-listener test). If they are still unknown then (a broker not reachable, a topic that
will not be created), batches go to librdkafka's partitioner, and the lookup is tried again after
`RETRY_S`; a refresh that finds nothing keeps the partitions known before.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

UNASSIGNED = -1
"""librdkafka's RD_KAFKA_PARTITION_UA: its partitioner decides."""
REFRESH_S = 30.0
RETRY_S = 1.0
FIRST_WAIT_S = 3.0
_FIRST_WAIT_STEP_S = 0.05
# librdkafka's partitioners that send a record without a key to a random partition.
_RANDOM_FOR_NULL_KEYS = frozenset({"consistent_random", "murmur2_random", "fnv1a_random", "random"})
_DEFAULT_PARTITIONER = "consistent_random"


def chooses_for_null_keys(settings: Mapping[str, Any]) -> bool:
    """Whether batches without keys may go to one partition each under these producer settings: not
    when the partitioner maps a missing key to a fixed partition (`consistent`, `murmur2`, `fnv1a`),
    nor when `sticky.partitioning.linger.ms=0` asks for a random partition per record."""
    partitioner = str(settings.get("partitioner", _DEFAULT_PARTITIONER))
    linger = str(settings.get("sticky.partitioning.linger.ms", "10")).strip()
    return partitioner in _RANDOM_FOR_NULL_KEYS and linger != "0"


class NullKeyPartitions:
    """Per topic, the partitions with a leader, looked up now and then; `choose` picks one per batch."""

    def __init__(
        self,
        lookup: Callable[[str], Sequence[int] | None],
        *,
        clock: Callable[[], float] = time.monotonic,
        choice: Callable[[Sequence[int]], int] = random.choice,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._lookup = lookup
        self._clock = clock
        self._choice = choice
        self._sleep = sleep
        # topic -> (when to look again, its partitions with a leader)
        self._known: dict[str, tuple[float, tuple[int, ...]]] = {}

    def choose(self, topic: str) -> int:
        """A partition of `topic` for the next batch, or `UNASSIGNED` while none is known."""
        now = self._clock()
        known = self._known.get(topic)
        if known is None or now >= known[0]:
            found = self._partitions(topic)
            if known is None:
                found = self._wait_for_first(topic, found, now + FIRST_WAIT_S)
                now = self._clock()
            known = (now + REFRESH_S, found) if found else (now + RETRY_S, known[1] if known else ())
            self._known[topic] = known
        partitions = known[1]
        if not partitions:
            return UNASSIGNED
        return partitions[0] if len(partitions) == 1 else self._choice(partitions)

    def _wait_for_first(self, topic: str, found: tuple[int, ...], deadline: float) -> tuple[int, ...]:
        while not found and self._clock() < deadline:
            self._sleep(_FIRST_WAIT_STEP_S)
            found = self._partitions(topic)
        return found

    def _partitions(self, topic: str) -> tuple[int, ...]:
        return tuple(self._lookup(topic) or ())
