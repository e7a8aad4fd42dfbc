"""Recovery of one topic partition from its manifests, and publication of a manifest's files.

Runs when a partition is assigned (task thread) and after a lost manifest race. The newest manifest
says what is committed: its files are moved into place if a crash interrupted that (idempotent:
files already in place are skipped), and the partition resumes at its `end_offset + 1`. Older
manifests are complete by construction (a writer finishes the moves of one commit before it creates
the next, and a recovering writer redoes them first). A manifest that cannot be read is re-read for
a moment (HDFS shows a file being written); if it stays unreadable its sequence number counts as
taken but committed nothing, and the one before it decides.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from connect.api import ConnectError, TopicPartition
from spark_sink.layout import commits_dir, manifest_path, parse_manifest_name
from spark_sink.manifest import Manifest, ManifestError
from spark_sink.storage import Storage

log = logging.getLogger(__name__)

UNREADABLE_WAIT_S = 3.0


@dataclass(frozen=True)
class RecoveredPartition:
    tp: TopicPartition
    next_seq: int
    published_end: int | None
    manifest: Manifest | None
    moved: int


def manifest_seqs(storage: Storage, tp: TopicPartition) -> list[int]:
    seqs = [parse_manifest_name(e.name) for e in storage.list_dir(commits_dir(tp)) if not e.is_dir]
    return sorted(s for s in seqs if s is not None)


def read_manifest(storage: Storage, tp: TopicPartition, seq: int) -> Manifest:
    path = manifest_path(tp, seq)
    try:
        data = storage.read(path)
    except FileNotFoundError:
        raise ManifestError(f"Commit manifest {path} disappeared") from None
    return Manifest.from_json(data, path)


def recover_partition(
    storage: Storage, tp: TopicPartition, unreadable_wait_s: float = UNREADABLE_WAIT_S
) -> RecoveredPartition:
    seqs = manifest_seqs(storage, tp)
    if not seqs:
        return RecoveredPartition(tp, 0, None, None, 0)
    newest = _newest_readable(storage, tp, seqs, unreadable_wait_s)
    moved = publish(storage, newest)
    if moved:
        log.info("Recovered %s: moved %d file(s) of commit %d into place", tp, moved, newest.seq)
    return RecoveredPartition(tp, seqs[-1] + 1, newest.end_offset, newest, moved)


def _newest_readable(storage: Storage, tp: TopicPartition, seqs: list[int], wait_s: float) -> Manifest:
    deadline = time.monotonic() + wait_s
    for position, seq in enumerate(reversed(seqs)):
        while True:
            try:
                manifest = read_manifest(storage, tp, seq)
            except ManifestError as exc:
                if position == 0 and time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                log.warning("Skipping unreadable commit manifest of %s: %s", tp, exc)
                break
            if manifest.tp != tp or manifest.seq != seq:
                raise ConnectError(f"Commit manifest {manifest_path(tp, seq)} describes {manifest.tp} #{manifest.seq}")
            return manifest
    raise ConnectError(
        f"No readable commit manifest for {tp} among {len(seqs)} in {commits_dir(tp)}: inspect them before restarting"
    )


def publish(storage: Storage, manifest: Manifest) -> int:
    """Moves the manifest's staged files to their final names; returns how many it moved."""
    moved = 0
    for file in manifest.files:
        if storage.exists(file.path):
            continue
        if storage.rename(file.staging, file.path):
            moved += 1
        elif not storage.exists(file.path):
            raise ConnectError(
                f"Commit {manifest.seq} of {manifest.tp} lists {file.staging}, which is neither in staging nor "
                f"at {file.path}: offsets {file.start_offset}..{file.end_offset} are lost"
            )
    return moved
