"""Where everything lives under the output root, and the names of committed files. Pure, any thread.

    <root>/<topics.dir>/<topic>/<encoded partition>/<topic>+<partition>+<start>+<end>.<codec>.parquet
    <root>/_commits/<topic>/<partition>/<seq>.json      one manifest per committed flush of a partition
    <root>/_staging/<epoch id>/s<n>/_g=<group>/part-*   what a Spark job wrote, before publication

Offsets in file names are inclusive and zero-padded to 20 digits so names sort by offset (Confluent's
grammar, with a width that a long-lived topic cannot overflow). Readers skip `_`-prefixed directories.
Staging groups are named `<topic>+<partition>+<seq>+<n>`: a staging directory tells, without any
other file, which topic partitions and manifest sequence numbers its files were meant for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from connect.api import TopicPartition

OFFSET_WIDTH = 20
SEQ_WIDTH = 20
STAGING_DIR = "_staging"
COMMITS_DIR = "_commits"
GROUP_COLUMN = "_g"
MANIFEST_SUFFIX = ".json"

# Parquet's own extensions per codec (CompressionCodecName.getExtension()), as Spark names its files.
CODEC_EXTENSIONS = {"snappy": ".snappy", "zstd": ".zstd", "gzip": ".gz", "none": ""}

_FILE_NAME = re.compile(r"([a-zA-Z0-9._-]+)\+(\d+)\+(\d+)\+(\d+)((?:\.\w+)*)")
_GROUP = re.compile(r"([a-zA-Z0-9._-]+)\+(\d+)\+(\d+)\+(\d+)")
_MANIFEST = re.compile(r"(\d+)\.json")


@dataclass(frozen=True)
class CommittedFileName:
    topic: str
    partition: int
    start_offset: int
    end_offset: int
    extension: str


@dataclass(frozen=True)
class StagingGroup:
    """A `_g=<label>` directory of a staging job: the files meant for manifest `seq` of `tp`."""

    tp: TopicPartition
    seq: int
    index: int

    @property
    def label(self) -> str:
        return f"{self.tp.topic}+{self.tp.partition}+{self.seq}+{self.index}"


def file_name(tp: TopicPartition, start_offset: int, end_offset: int, codec: str) -> str:
    return (
        f"{tp.topic}+{tp.partition}+{start_offset:0{OFFSET_WIDTH}d}+{end_offset:0{OFFSET_WIDTH}d}"
        f"{CODEC_EXTENSIONS[codec]}.parquet"
    )


def parse_file_name(name: str) -> CommittedFileName | None:
    match = _FILE_NAME.fullmatch(name)
    if match is None:
        return None
    topic, partition, start, end, extension = match.groups()
    return CommittedFileName(topic, int(partition), int(start), int(end), extension)


def data_path(topics_dir: str, topic: str, encoded_partition: str, name: str) -> str:
    return f"{topics_dir}/{topic}/{encoded_partition}/{name}" if encoded_partition else f"{topics_dir}/{topic}/{name}"


def commits_dir(tp: TopicPartition) -> str:
    return f"{COMMITS_DIR}/{tp.topic}/{tp.partition}"


def manifest_path(tp: TopicPartition, seq: int) -> str:
    return f"{commits_dir(tp)}/{seq:0{SEQ_WIDTH}d}{MANIFEST_SUFFIX}"


def parse_manifest_name(name: str) -> int | None:
    match = _MANIFEST.fullmatch(name)
    return int(match.group(1)) if match else None


def staging_dir(epoch_id: str) -> str:
    return f"{STAGING_DIR}/{epoch_id}"


def parse_group_dir(segment: str) -> StagingGroup | None:
    """`_g=orders+3+7+0` -> the group; None for any other path segment."""
    prefix = GROUP_COLUMN + "="
    if not segment.startswith(prefix):
        return None
    match = _GROUP.fullmatch(segment[len(prefix) :])
    if match is None:
        return None
    topic, partition, seq, index = match.groups()
    return StagingGroup(TopicPartition(topic, int(partition)), int(seq), int(index))


def groups_in_path(path: str) -> list[StagingGroup]:
    return [g for g in (parse_group_dir(s) for s in path.split("/")) if g is not None]
