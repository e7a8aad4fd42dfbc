"""The security group's rows: the paired costs and shares within each repetition, and the verdict on
kconnect's security targets that lands among its details (`bench/scenarios/security.py` measures them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.results import Metric, SystemResult
from bench.scenarios.rest import EndpointLog
from bench.stats import percentile, ratio

TIMES = "\u00d7"  # ruff flags the character itself as a look-alike

# The REST tables' metrics (one table per way of connecting).
HTTP_P50, SECURED_P50, COST_P50 = "http_p50_ms", "https_auth_p50_ms", "tls_auth_cost_p50_ms"
HTTP_P99, SECURED_P99 = "http_p99_ms", "https_auth_p99_ms"
REST_METRICS = (HTTP_P50, SECURED_P50, COST_P50, HTTP_P99, SECURED_P99)
# The throughput table.
PLAIN_RATE, SECURED_RATE, SECURED_SHARE = "plaintext_records_per_s", "sasl_ssl_records_per_s", "sasl_ssl_vs_plaintext"
PAIR_METRICS = (PLAIN_RATE, SECURED_RATE, SECURED_SHARE)


def rest_row(label: str, samples: Mapping[str, Sequence[float]]) -> SystemResult:
    """Per-repetition p50s and p99s of both workers, and the paired cost."""
    costs = [secured - plain for plain, secured in zip(samples[HTTP_P50], samples[SECURED_P50], strict=True)]
    metrics = {
        name: Metric("ms", False, tuple(samples[name])) for name in (HTTP_P50, SECURED_P50, HTTP_P99, SECURED_P99)
    }
    metrics[COST_P50] = Metric("ms", False, tuple(costs))
    return SystemResult.measured(label, metrics)


def pair_row(label: str, samples: Mapping[str, Sequence[float]]) -> SystemResult:
    """Both rates, and SASL_SSL's share of PLAINTEXT's rate within each repetition."""
    shares = [
        ratio(secured, plain) or 0.0 for plain, secured in zip(samples[PLAIN_RATE], samples[SECURED_RATE], strict=True)
    ]
    metrics = {name: Metric("records/s", True, tuple(samples[name])) for name in (PLAIN_RATE, SECURED_RATE)}
    metrics[SECURED_SHARE] = Metric(TIMES, True, tuple(shares))
    return SystemResult.measured(label, metrics)


def rest_target(kconnect: SystemResult, java: SystemResult) -> str | None:
    """The REST target, read from the medians: kconnect's TLS + auth cost no larger than Java's."""
    mine, theirs = kconnect.median(COST_P50), java.median(COST_P50)
    if mine is None or theirs is None:
        return None
    verdict = "met" if mine <= theirs else "missed"
    return f"{verdict}, p50 cost {mine:.2f} ms against Java's {theirs:.2f} ms"


def pair_target(kconnect: SystemResult, java: SystemResult) -> str | None:
    """The throughput target: kconnect's rate over Java's at least as high on SASL_SSL as on PLAINTEXT, which is
    kconnect's SASL_SSL ÷ PLAINTEXT at least Java's. Read from those shares, each taken within a repetition,
    so that drift between repetitions (other work on the machine) cancels out."""
    mine, theirs = kconnect.median(SECURED_SHARE), java.median(SECURED_SHARE)
    if mine is None or theirs is None:
        return None
    verdict = "met" if mine >= theirs else "missed"
    return f"{verdict}, SASL_SSL ÷ PLAINTEXT {mine:.2f}{TIMES} against Java's {theirs:.2f}{TIMES}"


def with_target(
    rows: Mapping[str, SystemResult], target: Callable[[SystemResult, SystemResult], str | None]
) -> dict[str, SystemResult]:
    """`rows` with the target's verdict among kconnect's details, when both rows were measured."""
    kconnect, java = rows.get(KCONNECT), rows.get(JAVA_CONNECT)
    verdict = target(kconnect, java) if kconnect is not None and java is not None else None
    if kconnect is None or verdict is None:
        return dict(rows)
    return {**rows, KCONNECT: replace(kconnect, details={**kconnect.details, "target": verdict})}


def latency_figures(log: EndpointLog, prefix: str) -> dict[str, float]:
    """`<prefix>_p50_ms` and `<prefix>_p99_ms` of one burst; raises if any request failed."""
    if log.errors or not log.latencies_ms:
        raise RuntimeError(f"{log.errors} of {len(log.latencies_ms)} requests failed over {prefix}")
    return {
        f"{prefix}_p50_ms": percentile(log.latencies_ms, 0.5),
        f"{prefix}_p99_ms": percentile(log.latencies_ms, 0.99),
    }
