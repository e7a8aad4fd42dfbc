"""Permissions next to authentication alone: what the RoleAuthorizer adds to a REST request.

Two standalone kconnect workers run at once, alike but for `rest.authorizer.class`: both have Kafka's
basic-auth extension (http, so that TLS adds nothing to either), the same 1,000 connectors (created STOPPED,
KIP-980, so no task runs) and the same user; the second also has the RoleAuthorizer with 100 grants, one per
team of ten connectors, every one of which names the user's groups, so each check matches the connector's
name against 100 patterns and a list shows all 1,000 connectors (the same answer as without permissions).
Each repetition measures the worker without the authorizer, then the one with it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import httpx

from bench.catalog import KCONNECT
from bench.harness import STANDALONE_MODE, RunContext, repeat, short_reason
from bench.rest import RestAccess
from bench.results import BenchmarkResult, Metric, SystemResult
from bench.scenarios.rest import EndpointLog, idle_source, open_loop
from bench.scenarios.security_rows import TIMES, latency_figures
from bench.secured_worker import BASIC_AUTH_EXTENSION, credentials_text, jaas_text, kafka_opts
from bench.stats import ratio
from bench.systems.base import RunningWorker, WorkerSetup, WorkerSystem, start_worker, stop_worker

NAME = "rest-authorization"
GROUP = "authorization"
CONNECTORS = 1000
TEAMS = 100
USER, PASSWORD = "bench", "bench-authorization-pw"
TARGET = 1.05  # the bound: within 5 % of authentication alone
# Per request kind: the path (a format of the connector's name) and the rate; lists are heavier.
KINDS = {"status": ("/connectors/{}/status", 100), "list": ("/connectors", 20)}
SECONDS = {"full": 10.0, "quick": 4.0}
AUTHN, AUTHZ = "authn", "authz"

METHOD = (
    f"Two standalone kconnect workers at once, both with `rest.extension.classes={BASIC_AUTH_EXTENSION}` over "
    f"http and the same {CONNECTORS} FileStreamSource connectors (created with `initial_state=STOPPED`, so no "
    "task runs); the second adds `rest.authorizer.class=RoleAuthorizer` with a rules file of "
    f"{TEAMS} editor grants, one per team of {CONNECTORS // TEAMS} connectors (`team-N-*`), each to a group "
    "the user is in, so every check matches a name against 100 patterns and a list keeps all connectors. One "
    "asyncio httpx client (kept-alive connections, basic-auth credentials) sends, open loop for {seconds:.0f} s "
    "each, `GET /connectors/{{c}}/status` at {status_rate}/s (round robin over the connectors) and "
    "`GET /connectors` at {list_rate}/s, first to the worker without the authorizer, then to the one with it; "
    "ratios are taken within each repetition. Target: with the authorizer, p50 and p99 within 5 % of "
    "authentication alone."
)


def rules(team_count: int) -> dict[str, object]:
    return {
        "groups": {f"team-{team}": [USER] for team in range(team_count)},
        "grants": [
            {"to": [f"group:team-{team}"], "role": "editor", "connectors": [f"team-{team}-*"]}
            for team in range(team_count)
        ],
    }


def connector_names() -> list[str]:
    return [f"team-{index % TEAMS}-connector-{index}" for index in range(CONNECTORS)]


def write_files(directory: Path) -> tuple[Path, Path]:
    """The JAAS file (and its users' file) and the rules file."""
    directory.mkdir(parents=True, exist_ok=True)
    credentials = directory / "connect.password"
    credentials.write_text(credentials_text(USER, PASSWORD))
    jaas = directory / "jaas.conf"
    jaas.write_text(jaas_text(credentials))
    rules_file = directory / "rules.json"
    rules_file.write_text(json.dumps(rules(TEAMS)))
    return jaas, rules_file


def setup(jaas: Path, rules_file: Path | None) -> WorkerSetup:
    properties = {"rest.extension.classes": BASIC_AUTH_EXTENSION}
    if rules_file is not None:
        properties |= {"rest.authorizer.class": "RoleAuthorizer", "rest.authorizer.rules.file": str(rules_file)}
    return WorkerSetup(
        properties=properties,
        environment={"KAFKA_OPTS": kafka_opts(jaas)},
        access=RestAccess(None, (USER, PASSWORD)),
    )


def fill(ctx: RunContext, worker: RunningWorker, names: Sequence[str]) -> None:
    empty = worker.workdir / "empty.txt"
    empty.touch()
    topic = ctx.unique("authorization-idle")
    for name in names:
        worker.rest.create(name, idle_source(empty, topic), initial_state="STOPPED")


async def burst(worker: RunningWorker, names: Sequence[str], kind: str, seconds: float) -> EndpointLog:
    path, rate = KINDS[kind]
    log = EndpointLog()
    options = worker.rest.access.client_options()
    async with httpx.AsyncClient(base_url=worker.rest.base_url, timeout=30.0, **options) as client:

        async def one(index: int) -> bool:
            response = await client.get(path.format(names[index % len(names)]))
            return response.status_code == 200

        await open_loop(rate, seconds, one, log, time.monotonic() + 0.1)
    return log


def measure(ctx: RunContext, workers: Mapping[str, RunningWorker], names: Sequence[str]) -> dict[str, list[float]]:
    seconds = SECONDS.get(ctx.mode, SECONDS["quick"])

    def once(_: int) -> dict[str, float]:
        figures: dict[str, float] = {}
        for kind in KINDS:
            for variant in (AUTHN, AUTHZ):
                log = asyncio.run(burst(workers[variant], names, kind, seconds))
                workers[variant].ensure_alive()
                figures |= latency_figures(log, f"{variant}_{kind}")
            for quantile in ("p50", "p99"):
                authz, authn = figures[f"{AUTHZ}_{kind}_{quantile}_ms"], figures[f"{AUTHN}_{kind}_{quantile}_ms"]
                figures[f"{kind}_{quantile}_ratio"] = ratio(authz, authn) or 0.0
        return figures

    return repeat(once, ctx.sizes.warmups, ctx.sizes.repetitions)


def row(label: str, samples: Mapping[str, Sequence[float]]) -> SystemResult:
    metrics = {
        name: Metric(TIMES if name.endswith("_ratio") else "ms", False, tuple(values))
        for name, values in samples.items()
    }
    result = SystemResult.measured(label, metrics)
    ratios = {name: result.median(name) for name in metrics if name.endswith("_ratio")}
    worst = max((value for value in ratios.values() if value is not None), default=None)
    if worst is None:
        return result
    verdict = "met" if worst <= TARGET else "missed"
    shown = ", ".join(f"{name.removesuffix('_ratio')} {value:.3f}{TIMES}" for name, value in ratios.items() if value)
    return replace(result, details={**result.details, "target": f"{verdict} ({shown}; bound {TARGET:.2f}{TIMES})"})


def metric_order() -> tuple[str, ...]:
    """The ratios first (the summary shows the first), then each request kind's latencies."""
    pairs = [(kind, quantile) for kind in KINDS for quantile in ("p50", "p99")]
    order = [f"{kind}_{quantile}_ratio" for kind, quantile in pairs]
    for kind, quantile in pairs:
        order += [f"{AUTHN}_{kind}_{quantile}_ms", f"{AUTHZ}_{kind}_{quantile}_ms"]
    return tuple(order)


def measure_kconnect(ctx: RunContext, system: WorkerSystem) -> SystemResult:
    jaas, rules_file = write_files(ctx.scratch("authorization-files"))
    names = connector_names()
    workers: dict[str, RunningWorker] = {}
    try:
        for variant, rules_of in ((AUTHN, None), (AUTHZ, rules_file)):
            workdir = ctx.scratch(f"authorization-{variant}")
            workers[variant] = start_worker(
                system, ctx.processes, ctx.bootstrap_servers, workdir, setup=setup(jaas, rules_of)
            )
            fill(ctx, workers[variant], names)
        return row(system.label, measure(ctx, workers, names))
    finally:
        for worker in workers.values():
            stop_worker(ctx.processes, worker)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    rows: dict[str, SystemResult] = {}
    for system in ctx.systems:
        if system.key != KCONNECT:
            continue  # Kafka Connect has no authorizer to compare with
        reason = ctx.unavailable_reason(system)
        if reason is not None:
            rows[system.key] = SystemResult.not_measurable(system.label, reason).in_mode(STANDALONE_MODE)
            continue
        try:
            rows[system.key] = measure_kconnect(ctx, system).in_mode(STANDALONE_MODE)
        except Exception as error:
            rows[system.key] = SystemResult.failed(system.label, short_reason(error)).in_mode(STANDALONE_MODE)
    seconds = SECONDS.get(ctx.mode, SECONDS["quick"])
    return [
        ctx.entry(
            NAME,
            GROUP,
            f"REST with the RoleAuthorizer ({TEAMS} grants, {CONNECTORS} connectors) next to authentication alone",
            "authorization cost",
            METHOD.format(seconds=seconds, status_rate=KINDS["status"][1], list_rate=KINDS["list"][1]),
            metric_order(),
            rows,
            settings={"connectors": CONNECTORS, "grants": TEAMS, "seconds_per_burst": seconds},
        )
    ]
