"""The benchmark results file: JSON round trip and merging `--only` reruns into earlier results."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bench.results import BenchmarkResult, Metric, Reference, ResultsFile, Status, SystemResult


def entry(name: str, group: str, kconnect: float = 100.0) -> BenchmarkResult:
    return BenchmarkResult(
        name=name,
        group=group,
        title=f"{name} title",
        short=name,
        method="how it was measured",
        metrics_order=("records_per_s",),
        systems={
            "kconnect": SystemResult.measured(
                "kconnect", {"records_per_s": Metric("records/s", True, (kconnect, kconnect + 20))}, errors=0
            ),
            "java-connect": SystemResult.not_measurable("Java Kafka Connect", "not built"),
        },
        comparisons=(Reference("raw producer", "confluent-kafka", "raw-producer-100B"),),
        ratio_metrics=("records_per_s",),
        settings={"records": 1000},
        machine={"cores": 2},
        mode="quick",
        measured_at="2026-01-01 00:00 UTC",
    )


def test_a_results_file_reads_back_what_was_saved(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks" / "results.json"
    original = ResultsFile({"source-100B": entry("source-100B", "source")})
    original.save(path)
    assert ResultsFile.load(path) == original


def test_saved_metrics_carry_min_median_max_for_readers_of_the_json(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    ResultsFile({"source-100B": entry("source-100B", "source", kconnect=100.0)}).save(path)
    metric = json.loads(path.read_text())["benchmarks"]["source-100B"]["systems"]["kconnect"]["metrics"]
    assert metric["records_per_s"] | {"samples": None} == {
        "unit": "records/s",
        "higher_is_better": True,
        "samples": None,
        "min": 100.0,
        "median": 110.0,
        "max": 120.0,
        "at_least": False,
    }


def test_not_measurable_rows_keep_their_reason(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    ResultsFile({"failover": entry("failover", "failover")}).save(path)
    row = ResultsFile.load(path).benchmarks["failover"].systems["java-connect"]
    assert (row.status, row.reason, row.metrics) == (Status.NOT_MEASURABLE, "not built", {})


def test_merging_a_rerun_group_replaces_only_that_group() -> None:
    earlier = ResultsFile(
        {
            "raw-producer-100B": entry("raw-producer-100B", "raw", kconnect=1.0),
            "source-100B": entry("source-100B", "source", kconnect=2.0),
            "source-1KB": entry("source-1KB", "source", kconnect=3.0),
        }
    )
    merged = earlier.merged([entry("source-100B", "source", kconnect=9.0)], groups=["source"])
    assert list(merged.benchmarks) == ["raw-producer-100B", "source-100B"]
    assert merged.benchmarks["raw-producer-100B"] == earlier.benchmarks["raw-producer-100B"]
    assert merged.benchmarks["source-100B"].systems["kconnect"].median("records_per_s") == 19.0


def test_a_missing_file_is_an_empty_result_set(tmp_path: Path) -> None:
    assert ResultsFile.load(tmp_path / "absent.json").benchmarks == {}


def test_a_file_of_another_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema": 99, "benchmarks": {}}))
    with pytest.raises(ValueError, match="schema"):
        ResultsFile.load(path)


def test_entries_are_ordered_by_group_as_the_report_lists_them() -> None:
    results = ResultsFile({"s": entry("s", "source"), "r": entry("r", "raw"), "x": entry("x", "unknown")})
    assert [e.name for e in results.ordered(["raw", "source"])] == ["r", "s", "x"]


def test_worker_modes_and_cut_off_figures_survive_the_file(tmp_path: Path) -> None:
    row = SystemResult.measured("Java", {"p50_s": Metric("s", False, (30.0,), at_least=True)}).in_mode("distributed")
    original = ResultsFile({"f": replace(entry("f", "failover"), systems={"java-connect": row})})
    path = tmp_path / "results.json"
    original.save(path)
    loaded = ResultsFile.load(path).benchmarks["f"].systems["java-connect"]
    assert loaded.worker_mode == "distributed"
    assert loaded.metrics["p50_s"].at_least


def test_a_mode_once_given_is_kept() -> None:
    row = SystemResult.measured("kconnect", {}).in_mode("standalone")
    assert row.in_mode("distributed, 3 workers").worker_mode == "standalone"


def test_files_written_before_worker_modes_and_bounds_still_load(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    ResultsFile({"e": entry("e", "source")}).save(path)
    data = json.loads(path.read_text())
    for system in data["benchmarks"]["e"]["systems"].values():
        del system["worker_mode"]
        for metric in system["metrics"].values():
            del metric["at_least"]
    path.write_text(json.dumps(data))
    loaded = ResultsFile.load(path).benchmarks["e"].systems["kconnect"]
    assert loaded.worker_mode == ""
    assert not loaded.metrics["records_per_s"].at_least
