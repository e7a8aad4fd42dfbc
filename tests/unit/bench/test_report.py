"""The benchmark page: tables with every figure and ratio, explicit not-measurable rows, plots, CLI selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.catalog import GROUP_NAMES, group_title
from bench.cli import SCENARIOS, parse_args
from bench.plots import draw_all
from bench.report import benchmark_table, format_number, render
from bench.results import BenchmarkResult, Metric, Reference, ResultsFile, SystemResult


def throughput(*samples: float) -> dict[str, Metric]:
    return {"records_per_s": Metric("records/s", True, samples)}


def source_entry() -> BenchmarkResult:
    return BenchmarkResult(
        name="source-100B",
        group="source",
        title="FileStreamSource → Kafka, 100B lines",
        short="100B",
        method="Timed from POST /connectors.",
        metrics_order=("records_per_s",),
        systems={
            "kconnect": SystemResult.measured("kconnect", throughput(390_000.0, 400_000.0, 420_000.0)),
            "java-connect": SystemResult.measured("Java Kafka Connect", throughput(800_000.0)),
        },
        comparisons=(
            Reference("raw producer", "confluent-kafka", "raw-producer-100B"),
            Reference("Java Connect", "java-connect"),
        ),
        ratio_metrics=("records_per_s",),
    )


def raw_entry() -> BenchmarkResult:
    return BenchmarkResult(
        name="raw-producer-100B",
        group="raw",
        title="Raw producer, 100B values",
        short="producer 100B",
        method="",
        metrics_order=("records_per_s",),
        systems={"confluent-kafka": SystemResult.measured("raw confluent-kafka", throughput(1_000_000.0))},
    )


def failover_entry() -> BenchmarkResult:
    return BenchmarkResult(
        name="failover-kill",
        group="failover",
        title="kill -9 of one worker",
        short="failover",
        method="",
        metrics_order=("seconds",),
        systems={"kconnect": SystemResult.not_measurable("kconnect", "distributed mode not built")},
    )


def results() -> ResultsFile:
    return ResultsFile({e.name: e for e in (raw_entry(), source_entry(), failover_entry())})


def test_a_row_shows_median_min_max_and_its_ratios_to_the_limit_and_the_peer() -> None:
    table = benchmark_table(source_entry(), results())
    assert table[0] == ("| system | records/s | records/s ÷ raw producer | records/s ÷ Java Connect |")
    assert table[2] == "| kconnect | 400,000 (390,000–420,000) | 0.40× | 0.50× |"  # noqa: RUF001
    assert table[3] == "| Java Kafka Connect | 800,000 | 0.80× | 1.00× |"  # noqa: RUF001


def test_a_ratio_to_a_limit_that_was_never_measured_is_a_dash() -> None:
    alone = ResultsFile({"source-100B": source_entry()})
    assert benchmark_table(source_entry(), alone)[2].endswith("| — | 0.50× |")  # noqa: RUF001


def test_what_cannot_be_measured_yet_says_why() -> None:
    table = benchmark_table(failover_entry(), results())
    assert "| kconnect | not yet measurable: distributed mode not built |" in table


def test_the_page_has_headline_method_tables_and_plots() -> None:
    page = render(results(), {"source": "benchmarks/source.png"}, method="## Method\n\nHand-written.")
    assert "| FileStreamSource → Kafka, 100B lines | records/s: 400,000 records/s | 0.40× raw producer" in page  # noqa: RUF001
    assert "## Method\n\nHand-written." in page
    assert "![Source throughput: FileStreamSource → Kafka](benchmarks/source.png)" in page
    assert (
        page.index("## Raw confluent-kafka client")
        < page.index("## Source throughput")
        < page.index(f"## {group_title('failover')}")
    )


def test_numbers_are_readable_at_every_magnitude() -> None:
    assert [format_number(v) for v in (1_234_567.8, 512.4, 45.67, 0.594)] == ["1,234,568", "512", "45.7", "0.59"]


def test_plots_are_drawn_for_groups_with_measurements_only(tmp_path: Path) -> None:
    images = draw_all(results(), tmp_path / "benchmarks", tmp_path)
    assert images == {"raw": "benchmarks/raw.png", "source": "benchmarks/source.png"}
    assert (tmp_path / "benchmarks" / "source.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "benchmarks" / "failover.png").exists()


def test_every_group_has_its_scenario() -> None:
    assert set(SCENARIOS) == set(GROUP_NAMES)


def test_only_selects_groups_in_report_order_and_rejects_unknown_names() -> None:
    assert parse_args(["--only", "sink,raw", "--only", "rest"]).groups == ["raw", "sink", "rest"]
    assert parse_args([]).groups == list(GROUP_NAMES)
    with pytest.raises(SystemExit):
        parse_args(["--only", "nope"])


def seconds(value: float, at_least: bool = False) -> dict[str, Metric]:
    return {"p50_s": Metric("s", False, (value,), at_least)}


def failover_measured() -> BenchmarkResult:
    distributed = "distributed, 3 workers"
    return BenchmarkResult(
        name="failover-kill",
        group="failover",
        title="kill -9 of one of 3 workers",
        short="kill -9",
        method="",
        metrics_order=("p50_s",),
        systems={
            "kconnect": SystemResult.measured("kconnect", seconds(12.0)).in_mode(distributed),
            "java-connect-delay-0": SystemResult.measured("Java, delay 0", seconds(10.0)).in_mode(distributed),
            "java-connect": SystemResult.measured("Java, default", seconds(30.0, at_least=True)).in_mode(distributed),
        },
        comparisons=(Reference("delay 0", "java-connect-delay-0"), Reference("default", "java-connect")),
    )


def test_a_wait_cut_off_at_its_bound_reads_as_more_than_the_bound_and_bounds_its_ratios() -> None:
    table = benchmark_table(failover_measured(), ResultsFile({"failover-kill": failover_measured()}))
    assert table[0] == "| system | worker mode | p50 (s) | p50 (s) ÷ delay 0 | p50 (s) ÷ default |"
    assert table[2] == "| kconnect | distributed, 3 workers | 12.0 | 1.20× | < 0.40× |"  # noqa: RUF001
    assert table[4] == "| Java, default | distributed, 3 workers | > 30.0 | > 3.00× | — |"  # noqa: RUF001


def test_the_headline_keeps_the_bound_of_a_cut_off_reference() -> None:
    page = render(ResultsFile({"failover-kill": failover_measured()}), {}, method="")
    line = "| kill -9 of one of 3 workers | p50 (s): 12.0 s | 1.20× delay 0, < 0.40× default (lower is better) |"  # noqa: RUF001
    assert line in page


def test_tables_without_worker_modes_have_no_mode_column() -> None:
    assert "worker mode" not in benchmark_table(source_entry(), results())[0]
