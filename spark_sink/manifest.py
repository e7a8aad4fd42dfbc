"""Commit manifests: the record that a flush of one topic partition is published (the commit point).

One JSON file per commit at `_commits/<topic>/<partition>/<seq>.json`, created exclusively: the
writer that creates sequence number `seq` first owns that commit, so a zombie writer that read the
same last number loses the race and must not publish. A manifest names every file of the flush
(staging path -> final path) so a recovering writer can redo the moves, and the offset range it
covers, so recovery resumes at `end_offset + 1` without opening data files. Pure values, any thread.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from connect.api import ConnectError, TopicPartition

FORMAT_VERSION = 1


class ManifestError(ConnectError):
    """A manifest file cannot be read (being written, or damaged)."""


@dataclass(frozen=True)
class ManifestFile:
    """One published file: where Spark wrote it, where it goes, and which offsets it holds (inclusive)."""

    staging: str
    path: str
    start_offset: int
    end_offset: int
    records: int


@dataclass(frozen=True)
class Manifest:
    """A committed flush of `topic`/`partition`, covering offsets `start_offset..end_offset` inclusive.

    Offsets in that range with no row (null values skipped, compacted gaps) are covered all the same:
    the next flush starts after `end_offset`.
    """

    topic: str
    partition: int
    seq: int
    start_offset: int
    end_offset: int
    files: tuple[ManifestFile, ...]
    epoch: str
    writer: str
    created_ms: int
    schema: str = ""

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    def to_json(self) -> bytes:
        body: dict[str, Any] = {"format": FORMAT_VERSION, **asdict(self)}
        body["files"] = [asdict(f) for f in self.files]
        return json.dumps(body, separators=(",", ":")).encode()

    @staticmethod
    def from_json(data: bytes, where: str = "") -> Manifest:
        try:
            body = json.loads(data)
            if not isinstance(body, Mapping) or body.get("format") != FORMAT_VERSION:
                raise ValueError(f"unknown manifest format {body.get('format') if isinstance(body, Mapping) else body}")
            files = tuple(ManifestFile(**f) for f in body["files"])
            return Manifest(
                topic=str(body["topic"]),
                partition=int(body["partition"]),
                seq=int(body["seq"]),
                start_offset=int(body["start_offset"]),
                end_offset=int(body["end_offset"]),
                files=files,
                epoch=str(body["epoch"]),
                writer=str(body["writer"]),
                created_ms=int(body["created_ms"]),
                schema=str(body.get("schema", "")),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ManifestError(f"Unreadable commit manifest {where}: {exc}") from None
