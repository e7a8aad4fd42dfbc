"""`/health`'s three answers, Kafka Connect's texts: shared by both herders and the placeholder REST app."""

from __future__ import annotations

from connect.runtime.domain.info import WorkerHealth

HEALTHY = WorkerHealth("healthy", "Worker has completed startup and is ready to handle requests.")
STARTING = WorkerHealth("starting", "Worker is still starting up.")
UNHEALTHY = WorkerHealth(
    "unhealthy", "Worker was unable to handle this request and may be unable to handle other requests."
)
