"""Tasks: the plug-ins that move the data. Each runs on its own thread in the worker.

SourceTask lifecycle: `initialize(context)`, `start(props)`, then `poll()` in a loop (`poll_batches()`
instead, for a task that overrides it); `stop()` is called from ANOTHER thread and must make a blocked
`poll` return soon. `commit_record` is called on
the producer's callback thread when Kafka acknowledged a record; `commit` after the runtime stored
the source offsets of acknowledged records.

SinkTask lifecycle: `initialize(context)`, `start(props)`, `open(partitions)` when partitions are
assigned, `put(records)` with each batch, `pre_commit(offsets)` (default: `flush` then return the
offsets) before the runtime commits consumer offsets, `close(partitions)` when partitions are revoked,
then `stop()`. All sink calls happen on the task's thread.

Raise `RetriableError` for a transient failure (the runtime retries) and any other exception to fail
the task (its status becomes FAILED with the trace, until a user restarts it).
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar

from connect.api.batch import SinkRecordBatch, SourceRecordBatch
from connect.api.context import RecordMetadata, SinkTaskContext, SourceTaskContext
from connect.api.records import SinkRecord, SourceRecord, TopicPartition

OFFSET_NOT_WRITTEN = -1
"""In `SourceTask.commit_batch`'s offsets: a record whose failure the error policy tolerated."""
OFFSET_NOT_REPORTED = -1001
"""In `SourceTask.commit_batch`'s offsets: a record Kafka wrote without saying where (the Kafka clients'
OFFSET_INVALID): a retried send Kafka had written already, or a run amid which another producer wrote."""


class Task(abc.ABC):
    """Base of all tasks; subclass `SourceTask` or `SinkTask`, not this."""

    def version(self) -> str:
        return "undefined"

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...


class SourceTask(Task):
    """Reads batches from an external system for Kafka; see the module docstring for the lifecycle."""

    TRANSACTION_BOUNDARY_CONFIG = "transaction.boundary"

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    @abc.abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """A batch of new records, or None/[] when there is nothing now. Block briefly at most (~1 s)."""

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        """Like `poll`, with the records column by column; batches go to Kafka in list order. The runtime
        calls it instead of `poll` for a task that overrides it, and then never calls `poll` (which must
        still be implemented: a flattening `[r for b in self.poll_batches() or () for r in b]` will do).
        Columns skip a `SourceRecord` per record and a converter call per key and value; the runtime
        builds records where they are needed (a transformation chain, `commit_record` overridden, a
        record that fails). The default returns what `poll` returned, in batches of alike records."""
        records = self.poll()
        return SourceRecordBatch.of_records(records) if records else None

    def commit(self) -> None:
        """The offsets of all acknowledged records so far are stored."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Kafka acknowledged `record` (metadata None: a transform dropped it). Runs on the producer thread."""

    def commit_batch(self, batch: SourceRecordBatch, offsets: Sequence[int]) -> None:
        """Kafka acknowledged every record of `batch`, one `poll_batches` returned: `offsets` are their Kafka
        offsets in the order Kafka acknowledged them (the batch's order when it names its Kafka partition),
        `OFFSET_NOT_WRITTEN` (-1) for a record whose failure was tolerated, `OFFSET_NOT_REPORTED` (-1001) for
        one written at an offset Kafka did not report. A task that polls batches and overrides this gets it instead
        of a `commit_record` per record, and its batches keep the column path (overriding `commit_record`
        alone makes the runtime build and send records one by one); where the runtime builds records anyway (a
        transformation chain) it calls `commit_record`. Not called for a batch one of whose records the
        producer refused outright. Runs where `commit_record` runs."""


class SinkTask(Task):
    """Consumes batches from Kafka and writes them out; see the module docstring for the lifecycle."""

    TOPICS_CONFIG = "topics"
    TOPICS_REGEX_CONFIG = "topics.regex"

    context: SinkTaskContext

    def initialize(self, context: SinkTaskContext) -> None:
        self.context = context

    @abc.abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) a batch. Records of one partition arrive in offset order."""

    takes_value_columns: ClassVar[bool] = False
    """True: the batches `put_batches` gets carry `value_columns` (struct values as one list per field)
    wherever the value converter can decode a batch that way (`Converter.to_connect_columns_batch`:
    AvroConverter and JsonSchemaConverter do), so no Struct is built per record unless the task reads `values`."""

    def put_batches(self, batches: Sequence[SinkRecordBatch]) -> None:
        """Like `put`, with the records column by column: each batch holds consecutive records of one
        topic partition, and a partition's batches arrive in offset order (one call may hold several
        batches of one partition). The runtime calls it instead of `put` only for a task that overrides
        it, and only while the connector has no transforms; `put` must work too. Each column is converted
        in one converter call (ByteArrayConverter's are the consumed bytes as they are; struct values
        as `value_columns` too, for a task that `takes_value_columns`); a batch that cannot be converted
        whole comes as batches of records converted one by one under the error policy (`value_columns`
        None: read `values`). An empty list means nothing came, as `put([])` does. The default hands the records to
        `put`."""
        self.put([record for batch in batches for record in batch])

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything `put` so far durable. `offsets` are the next offsets to consume per partition."""

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """The offsets that are safe to commit; the default flushes and returns `offsets` unchanged."""
        self.flush(offsets)
        return offsets

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions newly assigned to this task."""

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions taken away from this task; drop their buffers after the final `pre_commit`."""
