"""The benchmark broker's in-memory log: what a killed harness left behind is swept at the next run, and
nothing of a run that is starting, running, or between the stop and start of a broker restart."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from bench.broker import MEMORY_LOG_PREFIX, STALE_UNSTARTED_S, sweep_stale_memory_logs
from local_kafka.cluster import STATE_FILE, LocalKafka


def _recorded_cluster(place: Path) -> None:
    """A cluster.json as a start writes it, for a one-node cluster whose node is not running."""
    cluster = LocalKafka(place, nodes=1, port=39092)
    (place / STATE_FILE).write_text(json.dumps({**cluster._layout_record(), "cluster_id": "x"}))


def test_logs_no_broker_runs_from_are_removed_and_a_starting_run_is_left_alone(tmp_path: Path) -> None:
    stopped, restarting, starting, abandoned, other = (
        tmp_path / f"{MEMORY_LOG_PREFIX}stopped",
        tmp_path / f"{MEMORY_LOG_PREFIX}restarting",
        tmp_path / f"{MEMORY_LOG_PREFIX}starting",
        tmp_path / f"{MEMORY_LOG_PREFIX}abandoned",
        tmp_path / "someone-elses",
    )
    for place in (stopped, restarting, starting, abandoned, other):
        place.mkdir()
    _recorded_cluster(stopped)
    _recorded_cluster(restarting)  # stopped a moment ago: its files are fresh
    old = time.time() - STALE_UNSTARTED_S - 60
    for path in (abandoned, other, stopped, *stopped.iterdir()):
        os.utime(path, (old, old))

    sweep_stale_memory_logs(tmp_path)

    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{MEMORY_LOG_PREFIX}restarting",
        f"{MEMORY_LOG_PREFIX}starting",
        "someone-elses",
    ]
