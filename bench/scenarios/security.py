"""Secured next to plain, kconnect next to Java Connect: what TLS and authentication cost each system.

Each system runs two standalone workers at once from the same shared keys: a plain one (http REST, no
authentication, the broker's PLAINTEXT listener) and a secured one (https REST with Kafka's basic-auth
extension and its JAAS file, the broker's SASL_SSL listener with SCRAM-SHA-512; `bench/secured_worker.py`).
Every repetition measures the plain worker and then the secured one, so load from elsewhere on the machine
falls on both alike, and each cost is taken within one repetition (secured minus plain, secured over plain).

- REST: `GET /connectors/{c}/status` over a handful of paused connectors, open loop at a fixed rate, once
  over kept-alive connections and once with a new connection (TCP and, for https, a TLS handshake) per
  request, as a health check or curl makes them.
- Throughput: a FileStreamSource → topic → FileStreamSink pair, timed from the first `POST /connectors`
  until the sink's file holds every line, so both legs cross the listener under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.harness import STANDALONE_MODE, RunContext, repeat, short_reason, wait_until
from bench.java_connect import basic_auth
from bench.rest import RestAccess
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.common import payload, write_lines
from bench.scenarios.rest import EndpointLog, idle_source, open_loop
from bench.scenarios.security_rows import (
    HTTP_P50,
    PAIR_METRICS,
    PLAIN_RATE,
    REST_METRICS,
    SECURED_P50,
    SECURED_RATE,
    latency_figures,
    pair_row,
    pair_target,
    rest_row,
    rest_target,
    with_target,
)
from bench.scenarios.sink import file_size
from bench.scenarios.source import source_config
from bench.secured_worker import BASIC_AUTH_EXTENSION, SecuredRest, write_secured_rest
from bench.settings import FILE_SINK, VALUE_SIZES
from bench.systems import JavaConnect, RunningWorker, WorkerSystem, start_worker
from bench.systems.base import stop_worker

log = logging.getLogger(__name__)

GROUP = "security"
IDLE_CONNECTORS = 5
PAIR_SIZE = "100B"

# REST tables: one per way of connecting.
REUSED, FRESH = "reused", "fresh"
REST_NAMES = {REUSED: "security-rest-keepalive", FRESH: "security-rest-new-connection"}
PAIR_NAME = "security-filestream-pair"
NAMES = (*REST_NAMES.values(), PAIR_NAME)

REST_METHOD = (
    "Each system runs two standalone workers at once: a plain one (`listeners=http://...`, no REST extension) "
    "and a secured one (`listeners=https://...` with a PKCS12 key store under `listeners.https.ssl.*`, "
    f"`rest.extension.classes={BASIC_AUTH_EXTENSION}` and its JAAS file with a PropertyFileLoginModule users "
    "file, passed as `-Djava.security.auth.login.config` in KAFKA_OPTS for kconnect and on the JVM command line "
    "for Java, where Kafka's start scripts put KAFKA_OPTS). Each has {connectors} paused idle FileStreamSource "
    "connectors. One asyncio httpx client sends `GET /connectors/{{c}}/status` (round robin over them) at "
    "{rate}/s for {seconds:.0f} s to the plain worker, then the same to the secured one (verifying its "
    "certificate, with basic-auth credentials); the two alternate in each repetition. Latency runs from the "
    "scheduled send time to the full response (open loop). {connection} Cost = secured p50 minus plain p50 of the "
    "same repetition. Any failed request fails the row."
)
CONNECTION_TEXT = {
    REUSED: "Connections are kept alive and reused, so TLS costs its record encryption and auth its check.",
    FRESH: "Every request opens a new connection (no keep-alive), so the https side pays a TLS handshake each time.",
}
PAIR_METHOD = (
    "The same two workers per system; the plain one's Kafka clients use the broker's PLAINTEXT listener, the "
    "secured one's its SASL_SSL listener (SCRAM-SHA-512, TLS with the broker's CA in a PKCS12 trust store), with "
    "`security.protocol`, `sasl.mechanism`, `sasl.jaas.config` and `ssl.truststore.*` at the top level and under "
    "`producer.`, `consumer.` and `admin.`. A file of N 100-byte lines is prepared once. Timed from the first "
    "`POST /connectors` (a FileStreamSink on a new 1-partition topic, then a FileStreamSource from the file into "
    "it, `tasks.max=1` each) until the sink's file holds all N lines, polled every 20 ms; plain and secured "
    "alternate in each repetition. SASL_SSL ÷ PLAINTEXT is taken within each repetition."
)


async def status_burst(
    base_url: str, access: RestAccess, names: Sequence[str], rate: int, seconds: float, reuse: bool
) -> EndpointLog:
    """`GET /connectors/{c}/status` at `rate` for `seconds`, open loop; `reuse=False` closes each connection."""
    log = EndpointLog()
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100 if reuse else 0)
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits, **access.client_options()) as client:

        async def status(index: int) -> bool:
            response = await client.get(f"/connectors/{names[index % len(names)]}/status")
            return response.status_code == 200

        await open_loop(rate, seconds, status, log, time.monotonic() + 0.1)
    return log


@dataclass
class WorkerPair:
    plain: RunningWorker
    secured: RunningWorker


def secured_system(system: WorkerSystem, rest: SecuredRest, java_extension: Path) -> WorkerSystem:
    """Java Connect with Kafka's basic-auth extension (`java_extension`'s jars) on its classpath and the JAAS
    option KAFKA_OPTS would give it; kconnect as it is (it reads KAFKA_OPTS from its environment)."""
    if isinstance(system, JavaConnect):
        return JavaConnect(system.jars.with_extra(java_extension), system.version, kafka_opts=(rest.kafka_opts,))
    return system


def secured_variant(system: WorkerSystem, rest: SecuredRest) -> WorkerSystem:
    """`secured_system`, resolving the extension's jars for Java first (raises if they cannot be had)."""
    if isinstance(system, JavaConnect):
        return secured_system(system, rest, basic_auth.fetch(system.jars, system.version))
    return system


@contextlib.contextmanager
def worker_pair(
    ctx: RunContext, system: WorkerSystem, secured_as: WorkerSystem, rest: SecuredRest
) -> Iterator[WorkerPair]:
    """A plain standalone worker of `system` and a secured one of `secured_as`, both stopped when the block ends."""
    started: list[RunningWorker] = []
    try:
        plain = start_worker(system, ctx.processes, ctx.bootstrap_servers, ctx.scratch(f"{system.key}-plain"))
        started.append(plain)
        secured = start_worker(
            secured_as,
            ctx.processes,
            ctx.bootstrap_servers,
            ctx.scratch(f"{system.key}-secured"),
            setup=rest.worker_setup(ctx.secured_kafka),
        )
        started.append(secured)
        yield WorkerPair(plain, secured)
    finally:
        for worker in started:
            stop_worker(ctx.processes, worker)


def paused_idle_connectors(ctx: RunContext, worker: RunningWorker) -> list[str]:
    empty_file = worker.workdir / "empty.txt"
    empty_file.touch()
    topic = ctx.unique("security-idle")
    ctx.admin.create_topic(topic)
    names = [f"idle-{index}" for index in range(IDLE_CONNECTORS)]
    for name in names:
        worker.rest.create(name, idle_source(empty_file, topic))
    for name in names:
        worker.rest.wait_state(name, "RUNNING", tasks=1)
        worker.rest.pause(name)
    for name in names:
        worker.rest.wait_state(name, "PAUSED", tasks=1)
    return names


def measure_rest(ctx: RunContext, pair: WorkerPair) -> dict[str, dict[str, list[float]]]:
    """Connection mode -> metric -> per-repetition figures, plain and secured alternating."""
    sizes = ctx.sizes
    plain_names, secured_names = paused_idle_connectors(ctx, pair.plain), paused_idle_connectors(ctx, pair.secured)

    def burst(worker: RunningWorker, names: Sequence[str], reuse: bool, prefix: str) -> dict[str, float]:
        log = asyncio.run(
            status_burst(
                worker.rest.base_url,
                worker.rest.access,
                names,
                sizes.security_rest_rate,
                sizes.security_rest_seconds,
                reuse,
            )
        )
        worker.ensure_alive()
        return latency_figures(log, prefix)

    samples: dict[str, dict[str, list[float]]] = {}
    for mode, reuse in ((REUSED, True), (FRESH, False)):

        def measure(_: int, reuse: bool = reuse) -> dict[str, float]:
            plain = burst(pair.plain, plain_names, reuse, "http")
            return {**plain, **burst(pair.secured, secured_names, reuse, "https_auth")}

        samples[mode] = repeat(measure, sizes.warmups, sizes.repetitions)
    return samples


def timed_pair(ctx: RunContext, worker: RunningWorker, source: Path, count: int, value_size: int) -> float:
    """Seconds from creating a FileStreamSink and a FileStreamSource on a new topic until the sink's file is whole."""
    topic = ctx.unique("security-pair")
    ctx.admin.create_topic(topic)
    output = worker.workdir / f"{ctx.unique('pair-output')}.txt"
    sink, source_name = ctx.unique("pair-sink"), ctx.unique("pair-source")
    size = count * (value_size + 1)
    try:
        started = time.monotonic()
        worker.rest.create(sink, {"connector.class": FILE_SINK, "tasks.max": "1", "topics": topic, "file": str(output)})
        worker.rest.create(source_name, source_config(source, topic))

        def done() -> bool:
            worker.ensure_alive()
            return file_size(output) >= size

        finished = wait_until(done, 60.0 + count / 1000, what=f"{count} lines through {topic}")
        worker.rest.delete(source_name)
        worker.rest.delete(sink)
        return finished - started
    finally:
        ctx.admin.delete_topics([topic])
        output.unlink(missing_ok=True)


def measure_pairs(ctx: RunContext, pair: WorkerPair, source: Path) -> dict[str, list[float]]:
    count, value_size = ctx.sizes.security_pair_records, VALUE_SIZES[PAIR_SIZE]

    def measure(_: int) -> dict[str, float]:
        plain = timed_pair(ctx, pair.plain, source, count, value_size)
        secured = timed_pair(ctx, pair.secured, source, count, value_size)
        return {PLAIN_RATE: count / plain, SECURED_RATE: count / secured}

    return repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)


def measure_system(
    ctx: RunContext, system: WorkerSystem, secured_as: WorkerSystem, rest: SecuredRest, source: Path
) -> dict[str, SystemResult]:
    with worker_pair(ctx, system, secured_as, rest) as pair:
        latency = measure_rest(ctx, pair)
        rows = {REST_NAMES[mode]: rest_row(system.label, latency[mode]) for mode in REST_NAMES}
        rows[PAIR_NAME] = pair_row(system.label, measure_pairs(ctx, pair, source))
        return rows


def compared_systems(ctx: RunContext) -> list[WorkerSystem]:
    """kconnect (threads) and Java Connect: the pair the targets compare."""
    return [system for system in ctx.systems if system.key in (KCONNECT, JAVA_CONNECT)]


def run(ctx: RunContext) -> list[BenchmarkResult]:
    rows: dict[str, dict[str, SystemResult]] = {name: {} for name in NAMES}
    rest = write_secured_rest(ctx.scratch("rest-security"))
    source = ctx.scratch("security-input") / "lines.txt"
    write_lines(source, payload(VALUE_SIZES[PAIR_SIZE]), ctx.sizes.security_pair_records)
    for system in compared_systems(ctx):
        reason = ctx.unavailable_reason(system)
        if reason is None and not ctx.secured_kafka:
            reason = "the run's broker has no SASL_SSL listener"
        secured_as = system
        if reason is None:
            try:
                secured_as = secured_variant(system, rest)
            except Exception as error:
                log.exception("%s cannot be secured here", system.label)
                reason = f"Kafka's basic-auth REST extension is not available: {short_reason(error)}"
        if reason is not None:
            for name in NAMES:
                rows[name][system.key] = SystemResult.not_measurable(system.label, reason)
            continue
        try:
            for name, row in measure_system(ctx, system, secured_as, rest, source).items():
                rows[name][system.key] = row
        except Exception as error:
            log.exception("%s failed in the security group", system.label)
            for name in NAMES:
                rows[name].setdefault(system.key, SystemResult.failed(system.label, short_reason(error)))
    rows = {name: {key: row.in_mode(STANDALONE_MODE) for key, row in by_key.items()} for name, by_key in rows.items()}
    return entries(ctx, rows)


def entries(ctx: RunContext, rows: Mapping[str, Mapping[str, SystemResult]]) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    java = (Reference("Java Connect", JAVA_CONNECT),)
    rest_settings = {
        "idle_connectors": IDLE_CONNECTORS,
        "rate_per_s": sizes.security_rest_rate,
        "seconds_per_listener": sizes.security_rest_seconds,
        "rest_tls": "PKCS12 key store, EC P-256 certificate, ssl.client.auth=none",
        "rest_auth": "BasicAuthSecurityRestExtension, PropertyFileLoginModule",
    }
    result = [
        ctx.entry(
            REST_NAMES[mode],
            GROUP,
            f"REST `GET /connectors/{{c}}/status` at {sizes.security_rest_rate}/s, https + basic auth next to http, "
            + ("connections kept alive" if mode == REUSED else "a new connection per request"),
            "keep-alive" if mode == REUSED else "new connection",
            REST_METHOD.format(
                connectors=IDLE_CONNECTORS,
                rate=sizes.security_rest_rate,
                seconds=sizes.security_rest_seconds,
                connection=CONNECTION_TEXT[mode],
            ),
            REST_METRICS,
            with_target(rows[REST_NAMES[mode]], rest_target),
            comparisons=java,
            ratio_metrics=(SECURED_P50, HTTP_P50),
            settings={**rest_settings, "keep_alive": mode == REUSED},
        )
        for mode in REST_NAMES
    ]
    result.append(
        ctx.entry(
            PAIR_NAME,
            GROUP,
            f"FileStreamSource → Kafka → FileStreamSink, {PAIR_SIZE} lines, SASL_SSL next to PLAINTEXT",
            "SASL_SSL pair",
            PAIR_METHOD,
            PAIR_METRICS,
            with_target(rows[PAIR_NAME], pair_target),
            comparisons=java,
            ratio_metrics=(PLAIN_RATE, SECURED_RATE),
            settings={
                "records": sizes.security_pair_records,
                "value_bytes": VALUE_SIZES[PAIR_SIZE],
                "sasl.mechanism": "SCRAM-SHA-512",
            },
        )
    )
    return result
