"""A RebalanceListener for tests of sink consumers: it keeps the partition numbers assigned, and treats lost
partitions as revoked."""

from __future__ import annotations

from connect.api.records import TopicPartition


class PartitionRecorder:
    def __init__(self) -> None:
        self.assigned: set[int] = set()

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        self.assigned.update(p.partition for p in partitions)
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        self.assigned.difference_update(p.partition for p in partitions)

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        self.on_partitions_revoked(partitions)
