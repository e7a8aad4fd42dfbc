"""The rebalance group's plumbing: its series over time become a second plot the page embeds (and no table
column), a cluster grows by a member that is not started yet, and only the workers that ask for Kafka's test
connectors get them on their classpath."""

from __future__ import annotations

import os
from pathlib import Path

from bench.java_connect.jars import ConnectJars
from bench.plots import draw_all
from bench.procs import ProcessSet
from bench.report import benchmark_table, render
from bench.results import BenchmarkResult, Metric, ResultsFile, SystemResult
from bench.scenarios.rebalance import variants
from bench.systems.cluster import WorkerCluster
from bench.systems.java import JavaConnect
from bench.systems.kconnect import Kconnect


def throughput_entry(with_series: bool) -> BenchmarkResult:
    metrics = {"unaffected_pct": Metric("%", True, (99.0, 97.0))}
    if with_series:
        metrics |= {
            "series_t_s": Metric("s", True, (-0.75, -0.25, 0.25, 0.75)),
            "series_line_unaffected_tasks": Metric("records/s per task", True, (10.0, 10.0, 9.0, 10.0)),
            "series_line_other_tasks": Metric("records/s per task", True, (10.0, 10.0, 0.0, 4.0)),
            "series_mark_balanced": Metric("s", True, (0.6,)),
        }
    return BenchmarkResult(
        name="rebalance-throughput",
        group="rebalance",
        title="Throughput of unaffected tasks",
        short="unaffected",
        method="",
        metrics_order=("unaffected_pct",),
        systems={"kconnect": SystemResult.measured("kconnect", metrics)},
    )


def test_series_over_time_get_a_plot_of_their_own_that_the_page_embeds(tmp_path: Path) -> None:
    results = ResultsFile({"rebalance-throughput": throughput_entry(with_series=True)})
    images = draw_all(results, tmp_path / "benchmarks", tmp_path)
    assert images["rebalance-timeline"] == "benchmarks/rebalance-timeline.png"
    assert (tmp_path / "benchmarks" / "rebalance-timeline.png").read_bytes()[:4] == b"\x89PNG"
    page = render(results, images, method="")
    assert page.index("(benchmarks/rebalance.png)") < page.index("(benchmarks/rebalance-timeline.png)")
    assert "series" not in "\n".join(benchmark_table(results.benchmarks["rebalance-throughput"], results))


def test_rows_without_series_leave_no_timeline_behind(tmp_path: Path) -> None:
    stale = tmp_path / "benchmarks" / "rebalance-timeline.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    images = draw_all(ResultsFile({"x": throughput_entry(with_series=False)}), stale.parent, tmp_path)
    assert "rebalance-timeline" not in images
    assert not stale.exists()


def test_a_member_added_later_has_a_port_and_directory_of_its_own_and_is_not_started(tmp_path: Path) -> None:
    cluster = WorkerCluster.create(Kconnect(), ProcessSet(), "127.0.0.1:9092", tmp_path / "c", size=3, replication=1)
    newcomer = cluster.add_member()
    assert newcomer.name == "kconnect-4"
    assert newcomer.port not in {member.port for member in cluster.members[:3]}
    assert newcomer.workdir == tmp_path / "c" / "worker-4"
    assert newcomer.process is None and not newcomer.alive()
    assert cluster.members[-1] is newcomer


def test_only_the_rebalance_clusters_put_kafkas_test_connectors_on_the_java_classpath(tmp_path: Path) -> None:
    jars = ConnectJars(tmp_path / "libs", tmp_path / "plugins")
    assert jars.classpath == str(tmp_path / "libs" / "*")
    assert jars.with_tools().classpath == os.pathsep.join([str(tmp_path / "libs" / "*"), str(tmp_path / "tools" / "*")])
    java = JavaConnect(jars, "4.3.1")
    found = {variant.key: variant.system for variant in variants([Kconnect(), java])}
    java_rows = [system for key, system in found.items() if key != "kconnect"]
    assert all(isinstance(system, JavaConnect) and "tools" in system.jars.classpath for system in java_rows)
    assert java.jars.classpath == str(tmp_path / "libs" / "*")  # the run's own Java system is left as it was
