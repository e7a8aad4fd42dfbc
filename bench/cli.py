"""`python -m bench [--quick] [--only NAME ...]`: run benchmark groups, merge results, rewrite the report.

Owns the run's lifetime: a temporary directory, a dedicated broker on free ports, and a ProcessSet
that ends every process it started, whether the run succeeds, fails or is interrupted (SIGTERM and
SIGHUP are turned into SystemExit so the same `finally` blocks run; the ProcessSet's reaper covers a
SIGKILL of the harness). After each group the merged results are
saved, so a run that dies late keeps what it measured.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from bench import machine, plots, report, spark_sink
from bench.broker import KafkaAdmin, dedicated_broker, secured_client_keys
from bench.catalog import GROUP_NAMES
from bench.harness import RunContext
from bench.java_connect import jars as java_jars
from bench.procs import ProcessSet
from bench.results import BenchmarkResult, ResultsFile
from bench.scenarios import (
    authorization,
    avro,
    broker_restart,
    cdc,
    datagen,
    failover,
    latency,
    memory,
    metrics,
    mirror,
    paced,
    raw,
    rebalance,
    rest,
    sink,
    source,
    sql,
    startup,
)
from bench.scenarios import security as security_group
from bench.settings import FULL, QUICK
from bench.systems import JavaConnect, Kconnect, KconnectTaskProcesses, WorkerMode, WorkerSystem

log = logging.getLogger("bench")

Scenario = Callable[[RunContext], list[BenchmarkResult]]
SCENARIOS: dict[str, Scenario] = {
    "raw": raw.run,
    "source": source.run,
    "datagen": datagen.run,
    "sink": sink.run,
    "latency": latency.run,
    "rest": rest.run,
    "paced": paced.run,
    "memory": memory.run,
    "startup": startup.run,
    "failover": failover.run,
    "broker-restart": broker_restart.run,
    "rebalance": rebalance.run,
    "spark": spark_sink.run,
    "sql": sql.run,
    "avro": avro.run,
    security_group.GROUP: security_group.run,
    authorization.GROUP: authorization.run,
    metrics.GROUP: metrics.run,
    mirror.GROUP: mirror.run,
    cdc.GROUP: cdc.run,
}

REPO = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = REPO / "docs" / "benchmarks" / "results.json"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument(
        "--quick", action="store_true", help="smaller sizes (the Java comparison groups finish in under 10 minutes)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only these groups (repeatable or comma-separated): {', '.join(GROUP_NAMES)}",
    )
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="results JSON to merge into")
    parser.add_argument("--report-only", action="store_true", help="only regenerate the page and plots")
    parser.add_argument("--keep-workdir", action="store_true", help="keep logs and data of the run")
    args = parser.parse_args(argv)
    selected = {name.strip() for item in args.only for name in item.split(",") if name.strip()}
    unknown = selected - set(GROUP_NAMES)
    if unknown:
        parser.error(f"unknown group(s) {', '.join(sorted(unknown))}; choose from {', '.join(GROUP_NAMES)}")
    args.groups = [name for name in GROUP_NAMES if not selected or name in selected]
    return args


def write_report(results: ResultsFile, results_path: Path) -> Path:
    """Plots beside the JSON, the page one level up (docs/benchmarks.md for docs/benchmarks/results.json)."""
    page = results_path.parent.parent / f"{results_path.parent.name}.md"
    images = plots.draw_all(results, results_path.parent, page.parent)
    page.write_text(report.render(results, images))
    return page


def _raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def systems_for(kafka_version: str) -> tuple[list[WorkerSystem], dict[str, str]]:
    kconnect, processes = Kconnect(), KconnectTaskProcesses()
    unavailable: dict[str, str] = {}
    reason = kconnect.unavailable_reason()
    if reason:
        unavailable[kconnect.key] = reason
        unavailable[processes.key] = reason
    jars, missing = java_jars.fetch_or_reason(kafka_version)
    java: WorkerSystem = JavaConnect(jars, kafka_version)
    reason = missing or java.unavailable_reason()
    if reason:
        unavailable[java.key] = reason
    return [kconnect, processes, java], unavailable


def mode_availability(systems: Sequence[WorkerSystem]) -> dict[tuple[str, WorkerMode], str]:
    """(system key, mode) -> why that system cannot run in that mode here, for modes beyond standalone."""
    unavailable: dict[tuple[str, WorkerMode], str] = {}
    for system in systems:
        reason = system.mode_unavailable_reason(WorkerMode.DISTRIBUTED)
        if reason:
            unavailable[(system.key, WorkerMode.DISTRIBUTED)] = reason
    return unavailable


def run_groups(args: argparse.Namespace, workdir: Path) -> None:
    from local_kafka import default_version

    kafka_version = default_version()
    systems, unavailable = systems_for(kafka_version)
    unavailable_modes = mode_availability(systems)
    for key, reason in unavailable.items():
        log.warning("%s will not be measured: %s", key, reason)
    for (key, mode), reason in unavailable_modes.items():
        log.warning("%s will not be measured in %s mode: %s", key, mode, reason)
    # Only the security group needs the SASL_SSL listener; other runs keep the broker as it was.
    security = "sasl_ssl" if security_group.GROUP in args.groups else None
    with ProcessSet() as processes, dedicated_broker(workdir / "kafka", security) as cluster:
        nodes = cluster.status().nodes
        for node in nodes:
            if node.pid is not None:
                processes.watch_group(node.pid)  # its nodes lead their own sessions
        admin = KafkaAdmin(cluster.bootstrap_servers)
        ctx = RunContext(
            mode="quick" if args.quick else "full",
            sizes=QUICK if args.quick else FULL,
            workdir=workdir,
            bootstrap_servers=cluster.bootstrap_servers,
            admin=admin,
            processes=processes,
            systems=systems,
            unavailable=unavailable,
            machine=machine.describe(kafka_version),
            unavailable_modes=unavailable_modes,
            brokers=len(nodes),
            secured_kafka=secured_client_keys(cluster),
            broker=cluster,
        )
        try:
            for group in args.groups:
                started = time.monotonic()
                log.info("== %s", group)
                entries = SCENARIOS[group](ctx)
                results = ResultsFile.load(args.results).merged(entries, [group])
                results.save(args.results)
                for entry in entries:
                    print(f"\n{entry.title}\n" + "\n".join(report.benchmark_table(entry, results)), flush=True)
                log.info("== %s done in %.0f s", group, time.monotonic() - started)
        finally:
            admin.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # One line per REST call would drown the tables.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    signal.signal(signal.SIGTERM, _raise_on_sigterm)
    signal.signal(signal.SIGHUP, _raise_on_sigterm)
    if not args.report_only:
        workdir = Path(tempfile.mkdtemp(prefix="kconnect-bench-"))
        started = time.monotonic()
        try:
            run_groups(args, workdir)
        finally:
            if args.keep_workdir:
                log.info("run directory kept: %s", workdir)
            else:
                shutil.rmtree(workdir, ignore_errors=True)
        log.info("benchmarks took %.0f s", time.monotonic() - started)
    page = write_report(ResultsFile.load(args.results), args.results)
    print(f"wrote {page}", file=sys.stderr)
    return 0
