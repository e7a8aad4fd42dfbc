"""What the coordinator and its parts are given at construction: who this worker is, and its timeouts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    worker_id: str
    url: str
    liveness: str = ""  # `host:port` of this worker's liveness listener, written into its claims


@dataclass(frozen=True)
class Timing:
    sync_timeout: float  # worker.sync.timeout.ms: how long to wait for the logs to be read to their end
    write_timeout: float
    balance_delay: float
    handoff_timeout: float  # how long a moved unit waits for its former worker to stop it
    reclaim_after: float  # session timeout + heartbeat: a superseded slot the group still gives us is ours
