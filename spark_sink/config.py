"""The sink's settings: Confluent's storage-sink names where they exist, parsed once into a frozen value.

`CONFIG_DEF` is what `SparkParquetSinkConnector.config()` returns (the REST validate endpoint shows it);
`SinkSettings.from_props` parses a task's string map into typed values and applies the cross-field
checks (a time-based partitioner needs `path.format`, `locale` and `timezone`, ...). Keys starting with
`spark.` are not defined here: they go to the SparkSession builder unchanged (`spark_options`).
"""

from __future__ import annotations

import os.path
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connect.api import NO_DEFAULT, Config, ConfigDef, ConfigError, ConfigType, Importance, Range, ValidString

PATH_CONFIG = "path"
TOPICS_DIR_CONFIG = "topics.dir"
FLUSH_SIZE_CONFIG = "flush.size"
ROTATE_INTERVAL_MS_CONFIG = "rotate.interval.ms"
ROTATE_SCHEDULE_INTERVAL_MS_CONFIG = "rotate.schedule.interval.ms"
FLUSH_MAX_BYTES_CONFIG = "flush.max.bytes"
MAX_OPEN_FILES_CONFIG = "partitioner.max.open.files"
PARTITIONER_CLASS_CONFIG = "partitioner.class"
PARTITION_FIELD_NAME_CONFIG = "partition.field.name"
PATH_FORMAT_CONFIG = "path.format"
PARTITION_DURATION_MS_CONFIG = "partition.duration.ms"
LOCALE_CONFIG = "locale"
TIMEZONE_CONFIG = "timezone"
TIMESTAMP_EXTRACTOR_CONFIG = "timestamp.extractor"
TIMESTAMP_FIELD_CONFIG = "timestamp.field"
PARQUET_CODEC_CONFIG = "parquet.codec"
PARQUET_BLOCK_SIZE_CONFIG = "parquet.block.size"
STORE_KAFKA_METADATA_CONFIG = "store.kafka.metadata"
SCHEMA_COMPATIBILITY_CONFIG = "schema.compatibility"
VALUE_FORMAT_CONFIG = "value.format"
BEHAVIOR_ON_NULL_VALUES_CONFIG = "behavior.on.null.values"
SPARK_MASTER_CONFIG = "spark.master"
BATCH_HANDOFF_CONFIG = "batch.handoff"
SPARK_PREFIX = "spark."

CODECS = ("snappy", "zstd", "gzip", "none")
COMPATIBILITIES = ("NONE", "BACKWARD", "FORWARD", "FULL")
VALUE_FORMATS = ("auto", "json", "string", "binary")
NULL_BEHAVIORS = ("fail", "ignore")
HANDOFFS = ("auto", "arrow", "parquet")

GROUP_STORAGE = "Storage"
GROUP_ROTATION = "Rotation"
GROUP_PARTITIONER = "Partitioner"
GROUP_FORMAT = "Format"
GROUP_SPARK = "Spark"

CONFIG_DEF = (
    ConfigDef()
    .define(
        PATH_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        importance=Importance.HIGH,
        documentation="Root URI of the output: file://, hdfs://, s3a:// or any scheme Hadoop resolves. A plain "
        "path means file://. Data lands in <path>/<topics.dir>/<topic>/<encoded partition>/; the commit "
        "manifests in <path>/_commits/ and the files being written in <path>/_staging/.",
        group=GROUP_STORAGE,
    )
    .define(
        TOPICS_DIR_CONFIG,
        ConfigType.STRING,
        "topics",
        importance=Importance.HIGH,
        documentation="Directory under `path` that holds one directory per topic.",
        group=GROUP_STORAGE,
    )
    .define(
        FLUSH_SIZE_CONFIG,
        ConfigType.INT,
        NO_DEFAULT,
        Range.at_least(1),
        Importance.HIGH,
        "Records per topic partition (over all its encoded partitions) before its files are committed.",
        group=GROUP_ROTATION,
    )
    .define(
        ROTATE_INTERVAL_MS_CONFIG,
        ConfigType.LONG,
        -1,
        Range.at_least(-1),
        Importance.HIGH,
        "Commit a topic partition's files once the timestamps (from `timestamp.extractor`) of its records span "
        "this long; the first record of a file sets the base. -1 disables.",
        group=GROUP_ROTATION,
    )
    .define(
        ROTATE_SCHEDULE_INTERVAL_MS_CONFIG,
        ConfigType.LONG,
        -1,
        Range.at_least(-1),
        Importance.MEDIUM,
        "Commit open files on this wall-clock schedule (aligned to midnight in `timezone`), even when no new "
        "records arrive. -1 disables.",
        group=GROUP_ROTATION,
    )
    .define(
        FLUSH_MAX_BYTES_CONFIG,
        ConfigType.LONG,
        256 * 1024 * 1024,
        Range.at_least(1024),
        Importance.MEDIUM,
        "Upper bound of the bytes a task buffers (open files plus files waiting for Spark). Past half of it "
        "the largest buffers are committed early; at the bound the task's partitions are paused until the "
        "writer drained a quarter of it.",
        group=GROUP_ROTATION,
    )
    .define(
        MAX_OPEN_FILES_CONFIG,
        ConfigType.INT,
        -1,
        Range.at_least(-1),
        Importance.LOW,
        "Commit a topic partition's files when it has this many encoded partitions open. -1: no limit.",
        group=GROUP_ROTATION,
    )
    .define(
        PARTITIONER_CLASS_CONFIG,
        ConfigType.STRING,
        "DefaultPartitioner",
        importance=Importance.HIGH,
        documentation="DefaultPartitioner (partition=<kafka partition>), FieldPartitioner, TimeBasedPartitioner, "
        "HourlyPartitioner, DailyPartitioner (Confluent's io.confluent.connect.storage.partitioner.* names work "
        "too), the name of an entry point in the group `kconnect.spark_partitioners`, or module:Class.",
        group=GROUP_PARTITIONER,
    )
    .define(
        PARTITION_FIELD_NAME_CONFIG,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        documentation="FieldPartitioner: the value fields that make the directories (name=value each); dotted "
        "names reach nested fields. Integer, string and boolean fields only.",
        group=GROUP_PARTITIONER,
    )
    .define(
        PATH_FORMAT_CONFIG,
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        documentation="TimeBasedPartitioner: a Joda-Time pattern for the directories, e.g. "
        "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH.",
        group=GROUP_PARTITIONER,
    )
    .define(
        PARTITION_DURATION_MS_CONFIG,
        ConfigType.LONG,
        -1,
        importance=Importance.MEDIUM,
        documentation="TimeBasedPartitioner: the length of a time bucket in milliseconds.",
        group=GROUP_PARTITIONER,
    )
    .define(
        LOCALE_CONFIG,
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        documentation="Time-based partitioners: the locale of `path.format` (e.g. en-US). Month and weekday "
        "names are written in English whatever the locale.",
        group=GROUP_PARTITIONER,
    )
    .define(
        TIMEZONE_CONFIG,
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        documentation="Time-based partitioners and `rotate.schedule.interval.ms`: a zone id (UTC, Europe/Paris) or "
        "a fixed offset (+02:00).",
        group=GROUP_PARTITIONER,
    )
    .define(
        TIMESTAMP_EXTRACTOR_CONFIG,
        ConfigType.STRING,
        "Wallclock",
        importance=Importance.MEDIUM,
        documentation="Where record time comes from, for time-based partitioners and `rotate.interval.ms`: "
        "Wallclock (processing time), Record (the Kafka timestamp) or RecordField (`timestamp.field`).",
        group=GROUP_PARTITIONER,
    )
    .define(
        TIMESTAMP_FIELD_CONFIG,
        ConfigType.STRING,
        "timestamp",
        importance=Importance.MEDIUM,
        documentation="RecordField extractor: the value field holding the time (dotted for nested): a timestamp, "
        "epoch milliseconds, or a string of digits or ISO-8601.",
        group=GROUP_PARTITIONER,
    )
    .define(
        PARQUET_CODEC_CONFIG,
        ConfigType.STRING,
        "snappy",
        ValidString.in_(*CODECS),
        Importance.MEDIUM,
        "Parquet compression codec.",
        group=GROUP_FORMAT,
    )
    .define(
        PARQUET_BLOCK_SIZE_CONFIG,
        ConfigType.LONG,
        128 * 1024 * 1024,
        Range.at_least(1024 * 1024),
        Importance.LOW,
        "Parquet row group size in bytes.",
        group=GROUP_FORMAT,
    )
    .define(
        STORE_KAFKA_METADATA_CONFIG,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Add the columns _topic, _partition, _offset, _timestamp and _key to every row.",
        group=GROUP_FORMAT,
    )
    .define(
        SCHEMA_COMPATIBILITY_CONFIG,
        ConfigType.STRING,
        "NONE",
        ValidString.in_(*COMPATIBILITIES, ignore_case=True),
        Importance.MEDIUM,
        "What a schema change does to the open file of a topic partition. NONE: any change starts a new file. "
        "BACKWARD/FULL: a newer schema starts a new file, records of an older one are projected into it. "
        "FORWARD: an older schema starts a new file, newer records are projected down (new fields dropped).",
        group=GROUP_FORMAT,
    )
    .define(
        VALUE_FORMAT_CONFIG,
        ConfigType.STRING,
        "auto",
        ValidString.in_(*VALUE_FORMATS),
        Importance.MEDIUM,
        "How values become columns. auto: bytes are JSON objects, str is one `value` column, Struct and dict "
        "values map field by field. json: bytes and str are JSON objects. string: one `value` string column. "
        "binary: one `value` binary column.",
        group=GROUP_FORMAT,
    )
    .define(
        BEHAVIOR_ON_NULL_VALUES_CONFIG,
        ConfigType.STRING,
        "fail",
        ValidString.in_(*NULL_BEHAVIORS),
        Importance.LOW,
        "What a record with a null value (a tombstone) does: fail the task, or be skipped (its offset still "
        "counts as written).",
        group=GROUP_FORMAT,
    )
    .define(
        SPARK_MASTER_CONFIG,
        ConfigType.STRING,
        "local[*]",
        importance=Importance.MEDIUM,
        documentation="The Spark master of the worker's SparkSession (local[*], spark://, yarn, k8s://), or "
        "sc://host:port for a Spark Connect server. Every other key starting with `spark.` is passed to the "
        "SparkSession builder; JVM-level keys only apply when the session starts. With Spark Connect only "
        "`spark.sql.*` keys are sent (the rest are the server's), and `path` must be a file:// path that this "
        "worker and the server both see.",
        group=GROUP_SPARK,
    )
    .define(
        BATCH_HANDOFF_CONFIG,
        ConfigType.STRING,
        "auto",
        ValidString.in_(*HANDOFFS),
        Importance.LOW,
        "How a flush's records reach Spark. parquet: pyarrow writes them to an uncompressed hand-off file that "
        "Spark's vectorized Parquet reader loads (about twice as fast per row, with a fixed cost of its own per "
        "Spark job); the file is in a local temporary directory with a local master, else under "
        "<path>/_handoff/, and is deleted after the job. arrow: spark.createDataFrame on the Arrow table. auto: "
        "parquet for jobs of at least 20000 rows with a local master; arrow for smaller jobs, for any other master "
        "and for Spark Connect. The files written are the same either way.",
        group=GROUP_SPARK,
    )
)


@dataclass(frozen=True)
class SinkSettings:
    """A task's parsed settings. `raw` keeps every key (partitioners read their own from it)."""

    root: str
    topics_dir: str
    flush_size: int
    rotate_interval_ms: int
    rotate_schedule_interval_ms: int
    flush_max_bytes: int
    max_open_files: int
    partitioner_class: str
    codec: str
    parquet_block_size: int
    store_kafka_metadata: bool
    schema_compatibility: str
    value_format: str
    null_values: str
    timezone: str
    timestamp_extractor: str
    timestamp_field: str
    handoff: str
    spark_options: Mapping[str, str]
    raw: Mapping[str, Any]

    @staticmethod
    def from_props(props: Mapping[str, str]) -> SinkSettings:
        config = Config(CONFIG_DEF, props)
        timezone = config.get_str(TIMEZONE_CONFIG)
        schedule = config.get_int(ROTATE_SCHEDULE_INTERVAL_MS_CONFIG)
        if schedule > 0 and not timezone:
            raise ConfigError(f"{ROTATE_SCHEDULE_INTERVAL_MS_CONFIG} needs {TIMEZONE_CONFIG} to be set")
        if timezone:
            check_timezone(timezone)
        topics_dir = config.get_str(TOPICS_DIR_CONFIG).strip("/")
        if not topics_dir or topics_dir.startswith(("_", ".")):
            raise ConfigError(f"{TOPICS_DIR_CONFIG} must be a non-empty name that does not start with '_' or '.'")
        return SinkSettings(
            root=normalize_root(config.get_str(PATH_CONFIG)),
            topics_dir=topics_dir,
            flush_size=config.get_int(FLUSH_SIZE_CONFIG),
            rotate_interval_ms=config.get_int(ROTATE_INTERVAL_MS_CONFIG),
            rotate_schedule_interval_ms=schedule,
            flush_max_bytes=config.get_int(FLUSH_MAX_BYTES_CONFIG),
            max_open_files=config.get_int(MAX_OPEN_FILES_CONFIG),
            partitioner_class=config.get_str(PARTITIONER_CLASS_CONFIG),
            codec=config.get_str(PARQUET_CODEC_CONFIG),
            parquet_block_size=config.get_int(PARQUET_BLOCK_SIZE_CONFIG),
            store_kafka_metadata=config.get_bool(STORE_KAFKA_METADATA_CONFIG),
            schema_compatibility=config.get_str(SCHEMA_COMPATIBILITY_CONFIG).upper(),
            value_format=config.get_str(VALUE_FORMAT_CONFIG),
            null_values=config.get_str(BEHAVIOR_ON_NULL_VALUES_CONFIG),
            timezone=timezone,
            timestamp_extractor=config.get_str(TIMESTAMP_EXTRACTOR_CONFIG),
            timestamp_field=config.get_str(TIMESTAMP_FIELD_CONFIG),
            handoff=config.get_str(BATCH_HANDOFF_CONFIG),
            spark_options={k: v for k, v in props.items() if k.startswith(SPARK_PREFIX)},
            raw={**props, **config.values},
        )


def normalize_root(path: str) -> str:
    """The output root as a URI without a trailing slash; a plain path becomes an absolute file:// URI."""
    path = path.strip()
    if not path:
        raise ConfigError(f"{PATH_CONFIG} must not be empty")
    if "://" not in path and not path.startswith("file:"):
        return "file://" + os.path.abspath(os.path.expanduser(path)).rstrip("/")
    if path.startswith("file:") and not path.startswith("file://"):
        # Hadoop's short form file:/tmp/x.
        return "file://" + path[len("file:") :].rstrip("/")
    scheme, _, rest = path.partition("://")
    return f"{scheme.lower()}://{rest.rstrip('/')}" if rest.rstrip("/") else f"{scheme.lower()}://{rest}"


def check_timezone(timezone: str) -> None:
    """Accepts what `spark_sink.timezones.resolve` accepts; ConfigError otherwise."""
    from spark_sink.timezones import resolve

    try:
        resolve(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"Invalid value {timezone} for configuration {TIMEZONE_CONFIG}: {exc}") from None
