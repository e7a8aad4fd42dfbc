"""`SourceOffsetCommitter`: stores the offsets of what Kafka acknowledged, then calls `task.commit()`.

Kafka's `OffsetStorageWriter` and `AbstractWorkerSourceTask.commitOffsets`, on the task thread: every
`offset.flush.interval.ms`, and once more on pause and stop.

With error-only delivery reports the batches are known to be complete only once the producer is
flushed empty: the committer flushes and, while the task runs, waits on until it is (nearly free when
Kafka is the bottleneck, and giving up would leave offsets uncommitted for as long as the backlog
lasts). With per-record reports it only serves pending reports, unless the commit is `final`, which
flushes within the timeout. Then the committable offsets (in order per source partition) go to the
offset store; what the store did not take is retried at the next commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from connect.api.task import SourceTask
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.offsets import OffsetStore, SubmittedRecords
from connect.runtime.tasks.record_sender import RecordSender
from connect.runtime.tasks.source_deliveries import SourceDeliveries

log = logging.getLogger(__name__)


class SourceOffsetCommitter:
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        sender: RecordSender,
        deliveries: SourceDeliveries,
        submitted: SubmittedRecords,
        offset_store: OffsetStore,
        *,
        per_record_reports: bool,
        flush_timeout_s: float,
        keep_waiting: Callable[[], bool],
        stopping: Callable[[], bool],
    ) -> None:
        """`keep_waiting`: whether a periodic commit should go on waiting for acknowledgements (the task
        runs and is not stopping); `stopping`: whether the task is stopping."""
        self.task_id = task_id
        self._task = task
        self._sender = sender
        self._deliveries = deliveries
        self._submitted = submitted
        self._offset_store = offset_store
        self._per_record_reports = per_record_reports
        self._flush_timeout_s = flush_timeout_s
        self._keep_waiting = keep_waiting
        self._stopping = stopping
        self._unflushed: dict[bytes, bytes | None] = {}
        self.offset_commits = 0
        """How many commits wrote offsets."""

    def commit(self, *, final: bool, raise_fatal: bool) -> bool:
        """Acknowledgements, then offsets, then `task.commit()`; False if the offset store failed."""
        self._settle_deliveries(final, raise_fatal)
        if not self._store_offsets():
            return False
        try:
            self._task.commit()
        except Exception:
            log.exception("Source task %s: commit() failed (ignored)", self.task_id)
        return True

    def _settle_deliveries(self, final: bool, raise_fatal: bool) -> None:
        producer = self._sender.producer
        collect = self._deliveries.collect
        if self._per_record_reports:
            if final:
                producer.flush(self._flush_timeout_s)
            else:
                producer.poll(0)
            collect(type(producer), raise_fatal=raise_fatal)
            return
        remaining = producer.flush(self._flush_timeout_s)
        if remaining and not final and not self._stopping():
            log.warning("Source task %s: waiting for Kafka to acknowledge %d records", self.task_id, remaining)
            while remaining and self._keep_waiting():
                collect(type(producer), raise_fatal=raise_fatal)
                remaining = producer.flush(self._flush_timeout_s)
        collect(type(producer), raise_fatal=raise_fatal)
        if remaining == 0:
            self._submitted.acknowledge_all()
        else:
            log.warning("Source task %s: %d records not acknowledged yet; their offsets wait", self.task_id, remaining)

    def _store_offsets(self) -> bool:
        pending = self._unflushed
        pending.update(self._submitted.committable())
        if not pending:
            return True
        try:
            self._offset_store.set(pending)
            self._offset_store.flush(self._flush_timeout_s)
        except Exception:
            log.exception("Source task %s: failed to flush offsets to the offset store", self.task_id)
            return False
        self._unflushed = {}
        self.offset_commits += 1
        log.debug("Source task %s: committed offsets of %d source partitions", self.task_id, len(pending))
        return True
