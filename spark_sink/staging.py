"""Deleting staging directories that can never be published (left by crashed or fenced writers).

A staging group `_g=<topic>+<partition>+<seq>+<n>` can only ever be published by the manifest with
that sequence number. Once that number is taken (the partition's newest manifest has it or a later
one), the group is decided: either that manifest lists it (then it is deleted only after its move)
or it is garbage. A directory is deleted when all its groups are decided and none awaits a move;
one without any group (a job that died at its start) once it is older than `EMPTY_GRACE_MS`. Never
deleting an undecided group is what makes this safe against a writer that is still alive.
"""

from __future__ import annotations

import logging

from connect.api import TopicPartition
from spark_sink.layout import STAGING_DIR, groups_in_path, staging_dir
from spark_sink.manifest import Manifest, ManifestError
from spark_sink.recovery import manifest_seqs, read_manifest
from spark_sink.storage import Storage

log = logging.getLogger(__name__)

EMPTY_GRACE_MS = 10 * 60 * 1000


def sweep_staging(storage: Storage, now_ms: int, empty_grace_ms: int = EMPTY_GRACE_MS) -> list[str]:
    """Deletes dead staging directories; returns their epoch ids."""
    newest: dict[TopicPartition, tuple[int, Manifest | None]] = {}
    deleted: list[str] = []
    for entry in storage.list_dir(STAGING_DIR):
        directory = staging_dir(entry.name)
        entries = storage.walk(directory)
        files = [path for path, is_dir in entries if not is_dir]
        groups = {g for path, _ in entries for g in groups_in_path(path)}
        if not groups:
            if now_ms - entry.mtime_ms >= empty_grace_ms:
                storage.delete(directory)
                deleted.append(entry.name)
            continue
        if all(_is_dead(storage, newest, g.tp, g.seq, directory, files) for g in groups):
            storage.delete(directory)
            deleted.append(entry.name)
    if deleted:
        log.info("Deleted %d dead staging director(ies): %s", len(deleted), ", ".join(deleted))
    return deleted


def _is_dead(
    storage: Storage,
    newest: dict[TopicPartition, tuple[int, Manifest | None]],
    tp: TopicPartition,
    seq: int,
    directory: str,
    files: list[str],
) -> bool:
    if tp not in newest:
        seqs = manifest_seqs(storage, tp)
        newest[tp] = (seqs[-1], None) if seqs else (-1, None)
    top, manifest = newest[tp]
    if seq > top:
        return False  # undecided: a live writer may still commit it
    if seq < top:
        return True
    if manifest is None:
        try:
            manifest = read_manifest(storage, tp, top)
        except ManifestError:
            return False
        newest[tp] = (top, manifest)
    present = set(files)
    return not any(f.staging.startswith(directory + "/") and f.staging in present for f in manifest.files)
