"""Partitioners, timestamp extractors and Confluent's Joda-style path.format, evaluated in Python."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pytest

from connect.api import ConfigError, DataError, SinkRecord
from spark_sink.partitioners import Partitioner, PartitionInput, load_partitioner, load_timestamp_extractor
from spark_sink.partitioners.builtin import HourlyPartitioner
from spark_sink.partitioners.hive import escape
from spark_sink.partitioners.path_format import compile_path_format

JAN_1_2024_MS = 1_704_067_200_000


def batch(
    values: pa.Table, timestamps: Sequence[int | None] | None = None, now_ms: int = JAN_1_2024_MS
) -> PartitionInput:
    rows = values.num_rows
    records: list[SinkRecord] = []
    stamps = timestamps if timestamps is not None else [JAN_1_2024_MS] * rows
    return PartitionInput(
        "orders", 3, values, pa.array(range(rows), pa.int64()), pa.array(stamps, pa.int64()), records, now_ms
    )


def labels(partitioner: Partitioner, input_: PartitionInput) -> list[str]:
    result = partitioner.encode_partitions(input_)
    return [result] * input_.num_rows if isinstance(result, str) else result.to_pylist()


def config(**values: Any) -> Mapping[str, Any]:
    return {k.replace("_", "."): v for k, v in values.items()}


def test_default_partitioner_uses_the_kafka_partition() -> None:
    partitioner = load_partitioner({})
    assert partitioner.encode_partitions(batch(pa.table({"a": [1, 2]}))) == "partition=3"
    assert partitioner.partition_fields() == ["partition"]


@pytest.mark.parametrize(
    "name",
    [
        "FieldPartitioner",
        "io.confluent.connect.storage.partitioner.FieldPartitioner",
        "io.confluent.connect.hdfs.partitioner.FieldPartitioner",
        "spark_sink.partitioners.builtin:FieldPartitioner",
    ],
)
def test_partitioner_class_accepts_confluent_names_and_import_paths(name: str) -> None:
    partitioner = load_partitioner(config(partitioner_class=name, partition_field_name=["region"]))
    assert labels(partitioner, batch(pa.table({"region": ["eu", "us"]}))) == ["region=eu", "region=us"]


def test_unknown_partitioner_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"partitioner\.class"):
        load_partitioner(config(partitioner_class="NoSuchPartitioner"))
    with pytest.raises(ConfigError, match="not a Partitioner"):
        load_partitioner(config(partitioner_class="builtins:dict"))


def test_field_partitioner_multi_field_nested_nulls_and_escaping() -> None:
    partitioner = load_partitioner(
        config(partitioner_class="FieldPartitioner", partition_field_name="shop.region,vip,id")
    )
    values = pa.table({
        "shop": pa.array([{"region": "eu/west"}, {"region": None}, None], pa.struct([("region", pa.string())])),
        "vip": [True, False, None],
        "id": pa.array([7, 8, 9], pa.int16()),
    })  # fmt: skip
    assert labels(partitioner, batch(values)) == [
        "shop.region=eu%2Fwest/vip=true/id=7",
        "shop.region=null/vip=false/id=8",
        "shop.region=null/vip=null/id=9",
    ]
    assert partitioner.partition_fields() == ["shop.region", "vip", "id"]


def test_field_partitioner_rejects_missing_and_unsupported_fields() -> None:
    partitioner = load_partitioner(config(partitioner_class="FieldPartitioner", partition_field_name="price"))
    with pytest.raises(DataError, match="only integer, string or boolean"):
        partitioner.encode_partitions(batch(pa.table({"price": [1.5]})))
    with pytest.raises(DataError, match="not in the record value"):
        partitioner.encode_partitions(batch(pa.table({"other": [1]})))
    with pytest.raises(ConfigError, match=r"partition\.field\.name"):
        load_partitioner(config(partitioner_class="FieldPartitioner"))


def test_hive_escaping_matches_spark() -> None:
    assert escape("a b=c/d%e") == "a b%3Dc%2Fd%25e"
    assert escape("plain-value_1.2") == "plain-value_1.2"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH", "year=2024/month=03/day=05/hour=07"),
        ("YYYY-MM-dd'T'HH:mm:ss.SSS", "2024-03-05T07:08:09.123"),
        ("yy/M/d/H", "24/3/5/7"),
        ("MMM MMMM EEE EEEE", "Mar March Tue Tuesday"),
        ("D/w/e/a/hh/kk/KK", "65/10/2/AM/07/07/07"),
        ("'it''s' ZZ", "it's +01:00"),
        ("'dt'=YYYYMMdd/", "dt=20240305"),
    ],
)
def test_path_format_evaluates_joda_patterns(pattern: str, expected: str) -> None:
    moment = dt.datetime(2024, 3, 5, 7, 8, 9, 123456, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert compile_path_format(pattern).format(moment) == expected


def test_path_format_rejects_unknown_letters_and_lists_hive_fields() -> None:
    with pytest.raises(ConfigError, match="illegal pattern component: q"):
        compile_path_format("YYYY/qq")
    with pytest.raises(ConfigError, match="unclosed quote"):
        compile_path_format("'year=YYYY")
    fields = compile_path_format("'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH").partition_fields()
    assert fields == ["year", "month", "day", "hour"]


def time_based(**extra: Any) -> Partitioner:
    settings = {
        "partitioner_class": "TimeBasedPartitioner",
        "path_format": "'day'=YYYY-MM-dd/'hour'=HH",
        "partition_duration_ms": 3_600_000,
        "locale": "en-US",
        "timezone": "UTC",
        "timestamp_extractor": "Record",
        **extra,
    }
    return load_partitioner(config(**settings))


def test_time_based_buckets_record_time_in_the_timezone() -> None:
    hour = 3_600_000
    stamps = [JAN_1_2024_MS, JAN_1_2024_MS + hour - 1, JAN_1_2024_MS + hour, JAN_1_2024_MS - 1]
    values = pa.table({"a": [1, 2, 3, 4]})
    assert labels(time_based(), batch(values, stamps)) == [
        "day=2024-01-01/hour=00",
        "day=2024-01-01/hour=00",
        "day=2024-01-01/hour=01",
        "day=2023-12-31/hour=23",
    ]
    paris = labels(time_based(timezone="Europe/Paris"), batch(values, stamps))
    assert paris[0] == "day=2024-01-01/hour=01"
    india = labels(time_based(timezone="+05:30", partition_duration_ms=86_400_000), batch(values, stamps))
    assert india[0] == "day=2024-01-01/hour=00", "daily buckets start at local midnight"


def test_time_based_handles_daylight_saving_changes() -> None:
    # 2024-03-31 01:30 UTC is 03:30 in Paris (clocks went 02:00 -> 03:00 at 01:00 UTC).
    stamps = [1_711_846_800_000 - 1, 1_711_848_600_000]
    got = labels(time_based(timezone="Europe/Paris"), batch(pa.table({"a": [1, 2]}), stamps))
    assert got == ["day=2024-03-31/hour=01", "day=2024-03-31/hour=03"]


def test_time_based_requires_confluents_settings() -> None:
    for missing in ("path.format", "locale", "timezone"):
        settings = dict(config(
            partitioner_class="TimeBasedPartitioner", path_format="YYYY", partition_duration_ms=1000,
            locale="en", timezone="UTC",
        ))  # fmt: skip
        del settings[missing]
        with pytest.raises(ConfigError, match=missing):
            load_partitioner(settings)
    with pytest.raises(ConfigError, match=r"partition\.duration\.ms"):
        load_partitioner(
            config(partitioner_class="TimeBasedPartitioner", path_format="YYYY", locale="en", timezone="UTC")
        )


def test_hourly_and_daily_presets() -> None:
    hourly = load_partitioner(config(partitioner_class="HourlyPartitioner", locale="en", timezone="UTC"))
    assert isinstance(hourly, HourlyPartitioner)
    assert hourly.partition_fields() == ["year", "month", "day", "hour"]
    assert labels(hourly, batch(pa.table({"a": [1]}))) == ["year=2024/month=01/day=01/hour=00"]
    daily = load_partitioner(config(partitioner_class="DailyPartitioner", locale="en", timezone="UTC"))
    assert labels(daily, batch(pa.table({"a": [1]}), now_ms=JAN_1_2024_MS + 86_399_999)) == [
        "year=2024/month=01/day=01"
    ]


def test_extractors() -> None:
    wall = load_timestamp_extractor({})
    assert wall.is_wallclock
    assert wall.extract(batch(pa.table({"a": [1, 2]}), now_ms=42)).to_pylist() == [42, 42]
    record = load_timestamp_extractor(config(timestamp_extractor="Record"))
    with pytest.raises(DataError, match="no timestamp"):
        record.extract(batch(pa.table({"a": [1]}), [None]))
    field = load_timestamp_extractor(
        config(timestamp_extractor="io.confluent.connect.storage.partitioner.TimeBasedPartitioner$RecordField",
               timestamp_field="meta.at")
    )  # fmt: skip
    for column, expected in [
        (pa.array([1000, 2000], pa.int64()), [1000, 2000]),
        (pa.array(["1000", "2000"]), [1000, 2000]),
        (pa.array(["2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00"]), [JAN_1_2024_MS, JAN_1_2024_MS]),
        (pa.array(["2024-01-01T00:00:00", "5"]), [JAN_1_2024_MS, 5]),
        (pa.array([JAN_1_2024_MS * 1000], pa.timestamp("us", "UTC")), [JAN_1_2024_MS]),
    ]:
        values = pa.table({"meta": pa.StructArray.from_arrays([column], ["at"])})
        assert field.extract(batch(values, [0] * len(column))).to_pylist() == expected
    with pytest.raises(DataError, match="neither epoch milliseconds nor ISO-8601"):
        field.extract(batch(pa.table({"meta": pa.StructArray.from_arrays([pa.array(["soon"])], ["at"])})))


class RegionPartitioner(Partitioner):
    """A user's own partitioner, found through the entry point group kconnect.spark_partitioners."""

    def encode_partitions(self, batch: PartitionInput) -> str:
        return f"region={batch.topic.upper()}"


def test_user_partitioners_come_from_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from spark_sink.partitioners import loader

    entry = importlib.metadata.EntryPoint("Regions", f"{__name__}:RegionPartitioner", loader.ENTRY_POINT_GROUP)
    real = importlib.metadata.entry_points

    def entry_points(**selection: str) -> Any:
        if selection.get("group") == loader.ENTRY_POINT_GROUP:
            return [entry]
        return real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    partitioner = load_partitioner(config(partitioner_class="Regions"))
    assert partitioner.encode_partitions(batch(pa.table({"a": [1]}))) == "region=ORDERS"
