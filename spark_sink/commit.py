"""The epoch commit protocol: stage with one Spark job, commit per partition with a manifest, publish.

1. Spark writes every group of the epoch to `_staging/<epoch>/s<n>/_g=<group>/` (one job per schema),
   reading a Parquet hand-off file that is deleted right after (see `spark_sink.handoff`) or Arrow batches.
2. Per topic partition, the manifest `_commits/<topic>/<partition>/<seq>.json` is created exclusively:
   the commit point. Losing the race (the number is taken) means another writer owns the partition's
   history from there: the partition is reported fenced, its files are not published.
3. The committed files are moved to their final names (files already there are skipped).
4. The staging directory is deleted; old manifests beyond `KEEP_MANIFESTS` are pruned.

A failure before step 2 is retried with a fresh staging directory (`StagingError`, Spark errors);
any failure from step 2 on stops the writer: recovery (a new task) finishes the job from the manifests.
Runs on the writer thread only.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from connect.api import TopicPartition
from spark_sink.buffers import ClosedBatch
from spark_sink.epoch import EpochPlan, PlannedCommit, plan_epoch
from spark_sink.faults import CommitStep, FaultInjector, no_faults
from spark_sink.handoff import HandoffChoice
from spark_sink.layout import manifest_path, staging_dir
from spark_sink.ledger import Ledgers
from spark_sink.manifest import Manifest, ManifestFile
from spark_sink.recovery import manifest_seqs, publish
from spark_sink.spark_job import staged_files, write_job
from spark_sink.spark_resources import SparkResources
from spark_sink.storage import Storage

log = logging.getLogger(__name__)

KEEP_MANIFESTS = 8
STAGING_ATTEMPTS = 3


@dataclass
class EpochOutcome:
    epoch_id: str
    committed: dict[TopicPartition, int] = field(default_factory=dict)
    fenced: dict[TopicPartition, int] = field(default_factory=dict)
    stale: set[TopicPartition] = field(default_factory=set)
    files: int = 0
    rows: int = 0
    row_bytes: int = 0
    """The rows' size as Arrow held them for Spark, before Parquet encoded and compressed them."""
    spark_seconds: float = 0.0
    publish_seconds: float = 0.0


@dataclass(frozen=True)
class CommitSettings:
    topics_dir: str
    codec: str
    block_size: int
    writer_id: str


class EpochCommitter:
    def __init__(
        self,
        settings: CommitSettings,
        ledgers: Ledgers,
        resources: SparkResources,
        fault_injector: FaultInjector = no_faults,
    ) -> None:
        """`resources`: the task's session, storage and hand-off (`spark_resources`); `fault_injector`:
        called at each step of the protocol (`faults.CommitStep`)."""
        self.settings = settings
        self.ledgers = ledgers
        self.resources = resources
        self.fault_injector = fault_injector
        self._epochs = 0
        self.current_epoch: str | None = None
        """The epoch whose Spark job may be running (its job group), for cancellation."""

    def run(self, batches: Sequence[ClosedBatch]) -> EpochOutcome:
        storage = self.resources.storage()
        numbered, stale = self._number(batches)
        outcome = EpochOutcome("", stale=stale)
        if not numbered:
            return outcome
        plan, located = self._stage(storage, numbered, outcome)
        faults = self.fault_injector
        faults(CommitStep.STAGED, None)
        started = time.monotonic()
        for commit in plan.commits:
            self._commit(storage, plan, commit, located, outcome, faults)
        faults(CommitStep.PUBLISHED, None)
        storage.delete(staging_dir(plan.epoch_id))
        faults(CommitStep.STAGING_DELETED, None)
        outcome.publish_seconds = time.monotonic() - started
        return outcome

    def _number(self, batches: Sequence[ClosedBatch]) -> tuple[list[tuple[ClosedBatch, int]], set[TopicPartition]]:
        numbered: list[tuple[ClosedBatch, int]] = []
        stale: set[TopicPartition] = set()
        for batch in batches:
            ledger = self.ledgers.get(batch.tp)
            if ledger is None or ledger.generation != batch.generation:
                stale.add(batch.tp)
            else:
                numbered.append((batch, ledger.next_seq))
        return numbered, stale

    def _stage(
        self, storage: Storage, numbered: list[tuple[ClosedBatch, int]], outcome: EpochOutcome
    ) -> tuple[EpochPlan, dict[str, str]]:
        for attempt in range(1, STAGING_ATTEMPTS + 1):
            self._epochs += 1
            epoch_id = f"{self.settings.writer_id}-{self._epochs:08d}"
            plan = plan_epoch(epoch_id, numbered, self.settings.topics_dir, self.settings.codec)
            self.current_epoch = epoch_id
            started = time.monotonic()
            try:
                located: dict[str, str] = {}
                spark = self.resources.spark() if plan.jobs else None
                handoff = self.resources.handoff_choice() if plan.jobs else HandoffChoice(None)
                self.fault_injector(CommitStep.SPARK_JOB, None)
                for job in plan.jobs:
                    area = handoff.area_for(job.table.num_rows)
                    write_job(spark, storage, job, self.settings.codec, self.settings.block_size, epoch_id, area)
                    located.update({g.label: path for g, path in staged_files(storage, job).items()})
            except Exception:
                storage.delete(staging_dir(epoch_id))
                if attempt == STAGING_ATTEMPTS:
                    raise
                log.warning("Writing epoch %s failed (attempt %d); retrying", epoch_id, attempt, exc_info=True)
                time.sleep(min(8.0, 0.5 * 2**attempt))
                continue
            outcome.epoch_id = epoch_id
            outcome.spark_seconds = time.monotonic() - started
            outcome.rows = sum(job.table.num_rows for job in plan.jobs)
            outcome.row_bytes = sum(job.table.nbytes for job in plan.jobs)
            return plan, located
        raise AssertionError("unreachable")

    def _commit(
        self,
        storage: Storage,
        plan: EpochPlan,
        commit: PlannedCommit,
        located: dict[str, str],
        outcome: EpochOutcome,
        faults: FaultInjector,
    ) -> None:
        manifest = Manifest(
            topic=commit.tp.topic,
            partition=commit.tp.partition,
            seq=commit.seq,
            start_offset=commit.start_offset,
            end_offset=commit.end_offset,
            files=tuple(
                ManifestFile(located[f.group.label], f.final_path, f.start_offset, f.end_offset, f.records)
                for f in commit.files
            ),
            epoch=plan.epoch_id,
            writer=self.settings.writer_id,
            created_ms=int(time.time() * 1000),
            schema=commit.schema,
        )
        result = self.ledgers.commit(
            commit.tp, commit.generation, commit.seq, commit.end_offset, lambda: _create(storage, manifest)
        )
        if result == "stale":
            outcome.stale.add(commit.tp)
            return
        if result == "lost":
            log.warning(
                "%s: commit %d was taken by another writer; this task's data for it is dropped", commit.tp, commit.seq
            )
            outcome.fenced[commit.tp] = commit.generation
            return
        faults(CommitStep.MANIFEST_CREATED, commit.tp)
        for file in manifest.files:
            if not storage.exists(file.path):
                publish(storage, replace(manifest, files=(file,)))
            faults(CommitStep.FILE_MOVED, commit.tp)
        outcome.committed[commit.tp] = commit.end_offset
        outcome.files += len(manifest.files)
        _prune(storage, commit.tp, commit.seq)


def _create(storage: Storage, manifest: Manifest) -> bool:
    path = manifest_path(manifest.tp, manifest.seq)
    if not storage.create_exclusive(path, manifest.to_json()):
        return False
    # A zombie that read an old "last" number may have hit a slot freed by pruning: a newer one exists.
    if any(seq > manifest.seq for seq in manifest_seqs(storage, manifest.tp)):
        storage.delete(path)
        return False
    return True


def _prune(storage: Storage, tp: TopicPartition, newest: int) -> None:
    for seq in manifest_seqs(storage, tp):
        if seq <= newest - KEEP_MANIFESTS:
            storage.delete(manifest_path(tp, seq))
