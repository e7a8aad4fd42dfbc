"""What the Spark sink benchmark's systems share: the topics (cells), their records, the Spark settings,
and the file statistics every system reports."""

from __future__ import annotations

import os
import random
import string
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Producer

from bench.broker import KafkaAdmin
from bench.settings import PRODUCER_SETTINGS

FILES_PER_PARTITION = 3
CODEC = "snappy"
SCHEMA = "id BIGINT, user STRING, score DOUBLE, ts BIGINT, pad STRING"
# The same Spark for the sink's worker and for Structured Streaming: all cores, the same driver memory.
SPARK_OPTIONS = {
    "spark.master": "local[*]",
    "spark.driver.memory": "2g",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
}
AVG_FILE_MB = "avg_file"
FILES_PER_HOUR = "files_per_hour"


@dataclass(frozen=True)
class Cell:
    """One topic of N records of one value size over P partitions, and the file size every system writes."""

    size: str
    value_bytes: int
    partitions: int
    records: int
    topic: str

    def __post_init__(self) -> None:
        if self.records % (self.partitions * FILES_PER_PARTITION):
            raise ValueError(f"{self.records} records do not make whole files over {self.partitions} partitions")

    @property
    def name(self) -> str:
        return f"spark-{self.size}-{self.partitions}p"

    @property
    def per_partition(self) -> int:
        return self.records // self.partitions

    @property
    def file_records(self) -> int:
        """Records per file: `flush.size`, and `maxOffsetsPerTrigger` / partitions."""
        return self.per_partition // FILES_PER_PARTITION


def json_value(index: int, size: int, noise: str) -> bytes:
    """A JSON object of exactly `size` bytes; the pad differs between records so files do not compress away."""
    head = (
        f'{{"id":{1_000_000_000 + index},"user":"user-{index % 1000:03d}","score":{index % 977}.5,'
        f'"ts":{1_700_000_000_000 + index},"pad":"'
    )
    pad = size - len(head) - 2
    start = (index * 7919) % (len(noise) - pad)
    return (head + noise[start : start + pad] + '"}').encode()


def noise_for(cell_bytes: int) -> str:
    return "".join(random.Random(cell_bytes).choices(string.ascii_letters, k=8192))


def fill(admin: KafkaAdmin, bootstrap_servers: str, cell: Cell) -> None:
    """Create the cell's topic and write its records, record i to partition i % partitions."""
    admin.create_topic(cell.topic, cell.partitions)
    producer = Producer({"bootstrap.servers": bootstrap_servers, "log_level": 0, **PRODUCER_SETTINGS})
    noise = noise_for(cell.value_bytes)
    for index in range(cell.records):
        value = json_value(index, cell.value_bytes, noise)
        while True:
            try:
                producer.produce(cell.topic, value, partition=index % cell.partitions)
                break
            except BufferError:
                producer.poll(0.005)
        if index % 10_000 == 0:
            producer.poll(0)
    if producer.flush(120):
        raise RuntimeError(f"{cell.topic}: not every record was acknowledged")


def parquet_files(directory: Path) -> list[Path]:
    """Data files below `directory`, leaving out `_`-prefixed directories (staging, commits, Spark metadata)."""
    if not directory.exists():
        return []
    return [
        p for p in directory.rglob("*.parquet") if not any(s.startswith("_") for s in p.relative_to(directory).parts)
    ]


def file_stats(count: int, total_bytes: int, seconds: float) -> dict[str, float]:
    """Average file size (MB) and the files per hour the measured rate makes."""
    return {AVG_FILE_MB: total_bytes / max(count, 1) / 1e6, FILES_PER_HOUR: count / seconds * 3600}


def settle_writeback() -> None:
    """Writes the filled topics' pages to disk now. The kernel would otherwise write them back about 30 s
    after the fill (`vm.dirty_expire_centisecs`), during the timed repetitions of whichever system
    runs then."""
    os.sync()
