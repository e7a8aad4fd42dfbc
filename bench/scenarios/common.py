"""Pieces several scenarios share: throughput metrics, value payloads, line files."""

from __future__ import annotations

from pathlib import Path

from bench.results import Metric
from bench.stats import rate

RECORDS_PER_S = "records_per_s"
MB_PER_S = "MB_per_s"
THROUGHPUT_METRICS = (RECORDS_PER_S, MB_PER_S)
THROUGHPUT_UNITS = {RECORDS_PER_S: ("records/s", True), MB_PER_S: ("MB/s", True)}


def throughput(count: int, value_size: int, seconds: float) -> dict[str, float]:
    """records/s and MB/s (10^6 bytes of record values per second) of one repetition."""
    return {RECORDS_PER_S: rate(count, seconds), MB_PER_S: rate(count * value_size / 1e6, seconds)}


def throughput_metrics(samples: dict[str, list[float]]) -> dict[str, Metric]:
    return {name: Metric(*THROUGHPUT_UNITS[name], tuple(samples[name])) for name in THROUGHPUT_METRICS}


def payload(size: int) -> bytes:
    """A printable value of exactly `size` bytes: a valid line for FileStream and StringConverter."""
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    return (alphabet * (size // len(alphabet) + 1))[:size]


def write_lines(path: Path, value: bytes, count: int) -> None:
    """`count` lines of `value`, written in chunks so a million lines cost no more than a few MB of RAM."""
    chunk = 10_000
    line = value + b"\n"
    with path.open("wb") as handle:
        for start in range(0, count, chunk):
            handle.write(line * min(chunk, count - start))
