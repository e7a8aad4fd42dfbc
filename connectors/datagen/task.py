"""DatagenTask: generates its own numbered sequence of records, resumable from its stored offset.

Each record carries the task number and its sequence number: key `"<task>-<seq>"`, source partition
`{"task": <task>}`, source offset `{"seq": <seq>}` (and, for Struct values, fields `task` and `seq`),
so that a consumer can count lost and duplicated records. On start the task continues after the
sequence number stored for its partition. The runtime polls it through `poll_batches` (one
`SourceRecordBatch` per poll, no record object per record). `poll` runs on the task's thread; `stop` comes from
another thread and ends any wait (rate limit, finished share) at once.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Mapping

from connect.api import Config, ConnectError, SourceRecord, SourceRecordBatch, SourceTask
from connect.api.batch import FieldOffsets
from connect.api.data import STRING_SCHEMA
from connect.api.version import distribution_version
from connectors.datagen.config import (
    BATCH_SIZE_CONFIG,
    PAYLOAD_SIZE_CONFIG,
    QUICKSTART_CONFIG,
    SEED_CONFIG,
    TASK_CONFIG_DEF,
    TASK_ID_CONFIG,
    TASK_MAX_RECORDS_CONFIG,
    TASK_RECORDS_PER_SECOND_CONFIG,
    TOPIC_CONFIG,
    UNLIMITED,
)
from connectors.datagen.pacing import Pacer
from connectors.datagen.schemas import QUICKSTARTS, Quickstart, task_salt

log = logging.getLogger(__name__)

TASK_FIELD = "task"
SEQ_FIELD = "seq"

_MAX_POLL_WAIT_S = 1.0


class DatagenTask(SourceTask):
    """One task of a DatagenConnector: sequence numbers 0, 1, 2, ... up to its share of max.records."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._task = 0
        self._topic = ""
        self._batch_size = 1
        self._limit = UNLIMITED
        self._next_seq = 0
        self._partition: dict[str, int] = {}
        self._key_prefix = ""
        self._quickstart: Quickstart | None = None
        self._pacer: Pacer | None = None
        self._finished_logged = False

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(TASK_CONFIG_DEF, props)
        self._stopping.clear()
        self._task = config.get_int(TASK_ID_CONFIG)
        self._topic = config.get_str(TOPIC_CONFIG)
        self._batch_size = config.get_int(BATCH_SIZE_CONFIG)
        self._limit = config.get_int(TASK_MAX_RECORDS_CONFIG)
        self._partition = {TASK_FIELD: self._task}
        self._key_prefix = f"{self._task}-"
        seed = config.get(SEED_CONFIG)
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        factory = QUICKSTARTS[config.get_str(QUICKSTART_CONFIG)]
        self._quickstart = factory(self._task, task_salt(seed, self._task), config.get_int(PAYLOAD_SIZE_CONFIG))
        self._next_seq = self._stored_seq() + 1
        self._pacer = Pacer(config.get_float(TASK_RECORDS_PER_SECOND_CONFIG), self._stopping)
        self._finished_logged = False
        log.info("Datagen task %d starts at seq %d (limit %d)", self._task, self._next_seq, self._limit)

    def poll(self) -> list[SourceRecord] | None:
        batches = self.poll_batches()
        return [record for batch in batches for record in batch] if batches else None

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        if self._stopping.is_set() or self._quickstart is None or self._pacer is None:
            return None
        wanted = self._batch_size
        if self._limit != UNLIMITED:
            wanted = min(wanted, self._limit - self._next_seq)
            if wanted <= 0:
                self._finished()
                return None
        count = self._pacer.take(wanted, _MAX_POLL_WAIT_S)
        if count <= 0:
            return None
        first = self._next_seq
        self._next_seq = first + count
        now_ms = time.time_ns() // 1_000_000
        values = self._quickstart.values(first, count, now_ms)
        prefix = self._key_prefix
        seqs = range(first, first + count)
        return [
            SourceRecordBatch(
                self._topic,
                values,
                self._quickstart.value_schema,
                keys=[f"{prefix}{s}" for s in seqs],
                key_schema=STRING_SCHEMA,
                source_partition=self._partition,
                source_offsets=FieldOffsets(SEQ_FIELD, seqs),
                timestamp_at_send=True,  # the producer stamps each record when it sends it
            )
        ]

    def stop(self) -> None:
        self._stopping.set()

    def _finished(self) -> None:
        if not self._finished_logged:
            log.info("Datagen task %d generated all %d of its records", self._task, self._limit)
            self._finished_logged = True
        # Nothing more will come: wait (interruptibly) so the runtime does not spin on empty polls.
        self._stopping.wait(_MAX_POLL_WAIT_S)

    def _stored_seq(self) -> int:
        offset = self.context.offset_reader.offset(self._partition)
        seq = None if offset is None else offset.get(SEQ_FIELD)
        if seq is None:
            return -1
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ConnectError(f"Stored offset of datagen task {self._task} has a non-integer '{SEQ_FIELD}': {seq!r}")
        return seq
