"""MirrorMaker's own metrics (Java's `MirrorSourceMetrics` and `MirrorCheckpointMetrics`), in its JMX domain
`kafka.connect.mirror`, so `/metrics` serves them under the names Strimzi's exporter gives Java's and its
MirrorMaker 2 dashboard works unchanged:

- `kafka_connect_mirror_mirrorsourceconnector_<attr>{source, target, topic, partition}` for each mirrored
  partition (`topic` is the remote name): `record-count`/`record-rate` (records the target acknowledged),
  `byte-count`/`byte-rate` (value bytes read), `record-age-ms` (now minus the record's timestamp when read)
  and `replication-latency-ms` (now minus its timestamp when the target acknowledged it), each of the last
  two with `-min`, `-max` and `-avg` over the worker's metrics windows;
- `kafka_connect_mirror_mirrorcheckpointconnector_checkpoint-latency-ms{source, target, group, topic,
  partition}` (+ `-min`, `-max`, `-avg`): now minus a checkpoint's creation when the target acknowledged it.
  Java hangs every group and partition of a task off one sensor, so all show its latest value; here each has
  its own.

And kconnect's own, in the same group: `lost-record-count` (records deleted from the source before they were
mirrored) and `offset-reset-count` (positions the source no longer had: a gap, or a re-created topic).
"""

from __future__ import annotations

from connect.api.metrics import PluginMetrics, Recorder

DOMAIN = "connect.mirror"


class PartitionMetrics:
    """One mirrored partition's `MirrorSourceConnector` metrics."""

    __slots__ = ("age", "bytes", "latency", "lost", "offset_lag", "records", "resets")

    def __init__(self, metrics: PluginMetrics, source: str, target: str, remote_topic: str, partition: int) -> None:
        tags = {"source": source, "target": target, "topic": remote_topic, "partition": str(partition)}
        group = metrics.tagged(DOMAIN, "MirrorSourceConnector", tags)
        self.records = group.cumulative("record", "Records mirrored and acknowledged by the target cluster")
        self.bytes = group.cumulative("byte", "Bytes of record values read from the source cluster")
        self.age = group.latest("record-age-ms", "Age of a record when read from the source cluster (ms)")
        self.lost = group.cumulative("lost-record", "Records deleted from the source before they were mirrored")
        self.resets = group.cumulative(
            "offset-reset", "Positions the source cluster no longer had (gaps, re-creations)"
        )
        self.latency = group.latest(
            "replication-latency-ms", "Time from a record's timestamp to its acknowledgement by the target (ms)"
        )
        # KIP-971's metric, which Java never got: how far the target is behind the source, in records.
        self.offset_lag = group.latest(
            "replication-offset-lag",
            "Records of the source partition not yet on the target: its end offset, as last fetched, minus one "
            "past the last record the target acknowledged",
        )


def checkpoint_latency(
    metrics: PluginMetrics, source: str, target: str, group: str, topic: str, partition: int
) -> Recorder:
    tags = {"source": source, "target": target, "group": group, "topic": topic, "partition": str(partition)}
    return metrics.tagged(DOMAIN, "MirrorCheckpointConnector", tags).latest(
        "checkpoint-latency-ms", "Time from a checkpoint's creation to its acknowledgement by the target (ms)"
    )
