"""Failover: not measured yet on either side; the rows say why."""

from __future__ import annotations

from bench.catalog import JAVA_CONNECT, KCONNECT, SYSTEM_LABELS
from bench.harness import RunContext
from bench.results import BenchmarkResult, SystemResult

GROUP = "failover"


def run(ctx: RunContext) -> list[BenchmarkResult]:
    rows = {
        KCONNECT: SystemResult.not_measurable(SYSTEM_LABELS[KCONNECT], "distributed mode not built"),
        JAVA_CONNECT: SystemResult.not_measurable(
            SYSTEM_LABELS[JAVA_CONNECT],
            "left for later: needs ConnectDistributed with two or more workers, measured when kconnect's "
            "distributed mode can run the same test",
        ),
    }
    return [
        ctx.entry(
            "failover-kill",
            GROUP,
            "kill -9 of one worker of two until its tasks run elsewhere",
            "failover",
            "",
            ("seconds",),
            rows,
        )
    ]
