"""Datagen's settings: the keys users set, and the per-task keys the connector adds for each task."""

from __future__ import annotations

from connect.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Range, ValidString, single_topic
from connectors.datagen.schemas import QUICKSTARTS

TOPIC_CONFIG = "kafka.topic"
QUICKSTART_CONFIG = "quickstart"
MAX_RECORDS_CONFIG = "max.records"
RECORDS_PER_SECOND_CONFIG = "records.per.second"
SEED_CONFIG = "seed"
BATCH_SIZE_CONFIG = "batch.size"
PAYLOAD_SIZE_CONFIG = "payload.size"

# Set by DatagenConnector.task_configs for each task; not part of the connector's own definition.
TASK_ID_CONFIG = "datagen.task.id"
TASK_MAX_RECORDS_CONFIG = "datagen.task.max.records"
TASK_RECORDS_PER_SECOND_CONFIG = "datagen.task.records.per.second"

UNLIMITED = -1

CONFIG_DEF = (
    ConfigDef()
    .define(
        TOPIC_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        single_topic,
        Importance.HIGH,
        "The topic to write the generated records to (a single topic).",
    )
    .define(
        QUICKSTART_CONFIG,
        ConfigType.STRING,
        "sequence",
        ValidString.in_(*QUICKSTARTS),
        Importance.HIGH,
        "Which built-in record shape to generate. 'users', 'pageviews' and 'orders' are Struct values like "
        "Confluent's datagen quickstarts; 'sequence' is a Struct of seq, task and a string payload of "
        "payload.size characters; 'payload' is a raw BYTES value of exactly payload.size bytes (for benchmarks: "
        "use the ByteArrayConverter). Every Struct has the fields seq (INT64) and task (INT32); every record "
        'has the key \'<task>-<seq>\', source partition {"task": <task>} and source offset {"seq": <seq>}.',
    )
    .define(
        MAX_RECORDS_CONFIG,
        ConfigType.LONG,
        UNLIMITED,
        Range.at_least(UNLIMITED),
        Importance.MEDIUM,
        "How many records the connector generates in total, split as evenly as possible across its tasks "
        "(10 over 3 tasks: 4, 3, 3); -1 means no limit. A task whose share is done returns no more records.",
    )
    .define(
        RECORDS_PER_SECOND_CONFIG,
        ConfigType.DOUBLE,
        0.0,
        Range.at_least(0),
        Importance.MEDIUM,
        "The rate limit of the connector in records per second, split evenly across its tasks; "
        "0 means as fast as possible.",
    )
    .define(
        SEED_CONFIG,
        ConfigType.LONG,
        None,
        importance=Importance.LOW,
        documentation="Seed of the generated data: the same seed gives the same records (apart from timestamps) "
        "for the same task and sequence number, also after a restart. Unset: different data on every start.",
    )
    .define(
        BATCH_SIZE_CONFIG,
        ConfigType.INT,
        1000,
        Range.at_least(1),
        Importance.LOW,
        "The maximum number of records a task returns from one poll.",
    )
    .define(
        PAYLOAD_SIZE_CONFIG,
        ConfigType.INT,
        100,
        Range.between(0, 16 * 1024 * 1024),
        Importance.LOW,
        "Size of the payload of the 'payload' (bytes) and 'sequence' (characters) quickstarts.",
    )
)

TASK_CONFIG_DEF = CONFIG_DEF.merged(
    ConfigDef()
    .define(TASK_ID_CONFIG, ConfigType.INT, NO_DEFAULT, Range.at_least(0), Importance.LOW, "This task's number.")
    .define(
        TASK_MAX_RECORDS_CONFIG,
        ConfigType.LONG,
        UNLIMITED,
        Range.at_least(UNLIMITED),
        Importance.LOW,
        "This task's share of max.records: it generates the sequence numbers 0 to this value - 1.",
    )
    .define(
        TASK_RECORDS_PER_SECOND_CONFIG,
        ConfigType.DOUBLE,
        0.0,
        Range.at_least(0),
        Importance.LOW,
        "This task's share of records.per.second.",
    )
)


def split_evenly(total: int, parts: int) -> list[int]:
    """`total` in `parts` shares that differ by at most one, larger ones first: 10 over 3 is [4, 3, 3]."""
    share, extra = divmod(total, parts)
    return [share + 1 if i < extra else share for i in range(parts)]
