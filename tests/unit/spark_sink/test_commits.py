"""File naming, manifests, sequencing and the zombie race, recovery and the staging sweep, on local files."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from connect.api import ConnectError, TopicPartition
from spark_sink.buffers import Chunk, ClosedBatch
from spark_sink.commit import _create, _prune
from spark_sink.epoch import plan_epoch
from spark_sink.layout import (
    file_name,
    groups_in_path,
    manifest_path,
    parse_file_name,
    parse_group_dir,
)
from spark_sink.ledger import Ledgers
from spark_sink.manifest import Manifest, ManifestError, ManifestFile
from spark_sink.recovery import manifest_seqs, recover_partition
from spark_sink.staging import sweep_staging
from spark_sink.storage.local import LocalStorage

TP = TopicPartition("orders.v1", 3)


def manifest(seq: int, start: int, end: int, files: tuple[ManifestFile, ...] = (), tp: TopicPartition = TP) -> Manifest:
    return Manifest(tp.topic, tp.partition, seq, start, end, files, f"e{seq}", "w", 0)


def test_file_names_sort_by_offset_and_parse_back() -> None:
    name = file_name(TP, 5, 1234, "zstd")
    assert name == "orders.v1+3+00000000000000000005+00000000000000001234.zstd.parquet"
    assert file_name(TP, 9, 10, "none").endswith("10.parquet")
    parsed = parse_file_name(name)
    assert parsed is not None
    assert (parsed.topic, parsed.partition, parsed.start_offset, parsed.end_offset) == ("orders.v1", 3, 5, 1234)
    assert parse_file_name("part-0000.parquet") is None
    big = file_name(TP, 2**62, 2**63 - 1, "snappy")
    assert sorted([big, name]) == [name, big], "20 digits hold any Kafka offset"


def test_staging_group_labels_round_trip() -> None:
    group = parse_group_dir("_g=orders.v1+3+7+2")
    assert group is not None and (group.tp, group.seq, group.index) == (TP, 7, 2)
    assert group.label == "orders.v1+3+7+2"
    assert parse_group_dir("_g=garbage") is None
    assert groups_in_path("_staging/e1/_temporary/0/_g=a+0+1+0/part-1.parquet")[0].tp == TopicPartition("a", 0)


def test_manifest_json_round_trip_and_damage() -> None:
    original = manifest(4, 10, 19, (ManifestFile("_staging/e/s0/_g=x/p.parquet", "topics/x/f.parquet", 10, 19, 10),))
    assert Manifest.from_json(original.to_json()) == original
    assert original.records == 10
    with pytest.raises(ManifestError, match="Unreadable"):
        Manifest.from_json(original.to_json()[:20], "x")


def test_exclusive_create_lets_exactly_one_writer_take_a_sequence_number(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    assert _create(storage, manifest(0, 0, 9))
    assert not _create(storage, manifest(0, 0, 4)), "the zombie that read the same last number loses"
    assert Manifest.from_json(storage.read(manifest_path(TP, 0))).end_offset == 9
    assert [p.name for p in (tmp_path / "_commits" / "orders.v1" / "3").iterdir()] == [f"{0:020d}.json"]


def test_a_zombie_cannot_commit_into_a_pruned_slot(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    for seq in range(12):
        assert _create(storage, manifest(seq, seq * 10, seq * 10 + 9))
    _prune(storage, TP, 11)
    assert manifest_seqs(storage, TP) == list(range(4, 12))
    assert not _create(storage, manifest(2, 20, 29)), "a newer manifest exists: the stale writer loses"
    assert manifest_seqs(storage, TP) == list(range(4, 12))


def test_ledger_commits_only_for_the_current_generation() -> None:
    ledgers = Ledgers()
    first = ledgers.install(TP, next_seq=5, published_end=49)
    assert ledgers.commit(TP, first.generation, 5, 59, lambda: True) == "committed"
    assert ledgers.published() == {TP: 59}
    assert ledgers.commit(TP, first.generation, 5, 69, lambda: True) == "stale", "5 is used: the batch is old"
    assert ledgers.commit(TP, first.generation, 6, 69, lambda: False) == "lost"
    assert ledgers.published() == {TP: 59}
    second = ledgers.install(TP, next_seq=6, published_end=59)
    assert ledgers.commit(TP, first.generation, 6, 69, lambda: True) == "stale", "re-recovered since"
    ledgers.remove(TP)
    assert ledgers.commit(TP, second.generation, 6, 69, lambda: True) == "stale", "revoked: never commit"


def _staged(root: Path, relative: str) -> str:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"parquet")
    return relative


def test_recovery_redoes_moves_of_the_newest_manifest_and_resumes_after_it(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    assert recover_partition(storage, TP).published_end is None
    staged = [_staged(tmp_path, f"_staging/e1/s0/_g=orders.v1+3+1+{i}/part-{i}.parquet") for i in range(2)]
    finals = [f"topics/orders.v1/partition=3/f{i}.parquet" for i in range(2)]
    _staged(tmp_path, finals[0])  # moved before the crash
    (tmp_path / staged[0]).unlink()
    _create(storage, manifest(0, 0, 9))
    files = tuple(ManifestFile(s, f, 10 + i, 10 + i, 1) for i, (s, f) in enumerate(zip(staged, finals, strict=True)))
    _create(storage, manifest(1, 10, 19, files))
    recovered = recover_partition(storage, TP)
    assert (recovered.next_seq, recovered.published_end, recovered.moved) == (2, 19, 1)
    assert all((tmp_path / f).exists() for f in finals)
    assert recover_partition(storage, TP).moved == 0, "idempotent"


def test_recovery_fails_loudly_when_committed_files_are_gone(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    _create(storage, manifest(0, 0, 9, (ManifestFile("_staging/e/s0/_g=x/p.parquet", "topics/x/f.parquet", 0, 9, 10),)))
    with pytest.raises(ConnectError, match="are lost"):
        recover_partition(storage, TP)


def test_an_unreadable_newest_manifest_counts_as_taken_but_empty(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    _create(storage, manifest(0, 0, 9))
    (tmp_path / manifest_path(TP, 1)).write_bytes(b'{"format":1,"topic"')
    recovered = recover_partition(storage, TP, unreadable_wait_s=0.05)
    assert (recovered.next_seq, recovered.published_end) == (2, 9)


def test_sweep_deletes_only_staging_that_can_never_be_published(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    other = TopicPartition("b", 0)
    _create(storage, manifest(0, 0, 9))
    _create(storage, manifest(0, 0, 9, tp=other))
    _staged(tmp_path, "_staging/lost/s0/_g=orders.v1+3+0+0/part-0.parquet")  # seq 0 went to another writer
    _staged(tmp_path, "_staging/live/s0/_g=orders.v1+3+1+0/part-0.parquet")  # seq 1 is not taken yet
    _staged(tmp_path, "_staging/mixed/_temporary/0/_g=orders.v1+3+0+0/part-0.parquet")
    _staged(tmp_path, "_staging/mixed/_temporary/0/_g=b+0+1+0/part-0.parquet")
    _staged(tmp_path, "_staging/moved/s0/_g=b+0+0+0/part-0.parquet")
    (tmp_path / "_staging/moved/s0/_g=b+0+0+0/part-0.parquet").unlink()  # empty group dir: moved already
    (tmp_path / "_staging" / "young").mkdir()
    deleted = sweep_staging(storage, now_ms=0, empty_grace_ms=10**15)
    assert sorted(deleted) == ["lost", "moved"]
    assert sorted(p.name for p in (tmp_path / "_staging").iterdir()) == ["live", "mixed", "young"]


def test_sweep_keeps_files_a_committed_manifest_still_has_to_move(tmp_path: Path) -> None:
    storage = LocalStorage(f"file://{tmp_path}")
    staged = _staged(tmp_path, "_staging/e/s0/_g=orders.v1+3+0+0/part-0.parquet")
    _create(storage, manifest(0, 0, 9, (ManifestFile(staged, "topics/x/f.parquet", 0, 9, 10),)))
    assert sweep_staging(storage, now_ms=0) == []
    recover_partition(storage, TP)
    assert sweep_staging(storage, now_ms=0) == ["e"]


def test_plan_epoch_gives_each_encoded_partition_one_file_in_offset_order() -> None:
    labels = pa.array(["d=b", "d=a", "d=b", "d=a"])
    chunk = Chunk(pa.table({"v": [10, 11, 12, 13]}), pa.array([10, 11, 12, 13], pa.int64()), labels)
    second = Chunk(pa.table({"v": [14]}), pa.array([14], pa.int64()), "d=a")
    batch = ClosedBatch(TP, 1, 10, 15, (chunk, second), 5, 0, "flush.size")
    plan = plan_epoch("w-1", [(batch, 7)], "topics", "snappy")
    (commit,) = plan.commits
    assert (commit.seq, commit.start_offset, commit.end_offset) == (7, 10, 15)
    assert [(f.final_path, f.records) for f in commit.files] == [
        (f"topics/orders.v1/d=a/{file_name(TP, 11, 14, 'snappy')}", 3),
        (f"topics/orders.v1/d=b/{file_name(TP, 10, 12, 'snappy')}", 2),
    ]
    (job,) = plan.jobs
    assert job.staging == "_staging/w-1/s0"
    assert job.table.column("v").to_pylist() == [11, 13, 14, 10, 12]
    assert job.table.column("_g").to_pylist() == ["orders.v1+3+7+0"] * 3 + ["orders.v1+3+7+1"] * 2


def test_plan_epoch_splits_jobs_by_schema_and_merges_batches_of_a_partition() -> None:
    a = Chunk(pa.table({"x": [1]}), pa.array([0], pa.int64()), "p")
    b = Chunk(pa.table({"y": ["s"]}), pa.array([1], pa.int64()), "p")
    batches = [(ClosedBatch(TP, 1, 0, 0, (a,), 1, 0, "schema"), 3), (ClosedBatch(TP, 1, 1, 1, (b,), 1, 0, "x"), 3)]
    plan = plan_epoch("w-2", batches, "topics", "none")
    assert len(plan.jobs) == 2
    (commit,) = plan.commits
    assert (commit.start_offset, commit.end_offset, len(commit.files)) == (0, 1, 2)
    assert [f.group.index for f in commit.files] == [0, 1]
