"""`kconnect worker [worker.properties]`: a distributed worker, like Kafka's connect-distributed.

Settings come from the properties file (optional) and `KCONNECT_*` environment variables, which win
(`workers.common.env`: `bootstrap.servers` is `KCONNECT_BOOTSTRAP_SERVERS`). Workers with the same `group.id` and
internal topics form one cluster; any of them answers the REST API for all. SIGTERM or SIGINT leaves
the cluster gracefully: the worker's tasks stop, commit, and move to the other workers at once.

Exit codes: 0 after a graceful stop, 2 if the worker could not start (bad settings, wrong internal
topics, Kafka unreachable).
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from connect.api.errors import ConnectError
from workers.common.signals import run_until_signalled

log = logging.getLogger(__name__)

EXIT_STARTUP_ERROR = 2


class DistributedWorkerLike(Protocol):
    def start(self, *, on_listening: Callable[[str], None] | None = None) -> None: ...

    def stop(self) -> None: ...


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a distributed worker (like Kafka's connect-distributed)",
        description="Run one worker of a cluster; REST on `listeners` (default http://:8083). Every setting can "
        "also be given as an environment variable: KCONNECT_ + the key in upper case, '.' as '_', '_' as '__', "
        "'-' as '___' (bootstrap.servers: KCONNECT_BOOTSTRAP_SERVERS).",
    )
    parser.add_argument(
        "worker_properties", type=Path, nargs="?", help="worker config (Kafka Connect's distributed worker keys)"
    )
    parser.add_argument("--log-level", default="INFO", help="root log level (default: %(default)s)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so that other subcommands do not load the runtime and FastAPI.
    from connect.runtime.config.worker_config import LOG_FORMAT
    from workers.common.logs import configure_logging, format_from_environment
    from workers.distributed.process import DistributedWorker
    from workers.distributed.settings import DistributedSettings

    level = str(args.log_level).upper()
    configure_logging(level, format_from_environment(os.environ))
    try:
        settings = DistributedSettings.load(args.worker_properties, os.environ)
    except (OSError, ConnectError) as exc:
        log.error("Stopping due to error: %s", exc)
        return EXIT_STARTUP_ERROR
    logs = configure_logging(level, str(settings.worker.get(LOG_FORMAT)))
    worker = DistributedWorker(settings)
    return run_until_signalled(
        lambda: start(worker, on_listening=logs.identify), worker.stop, stopping="leaving the cluster"
    )


def start(worker: DistributedWorkerLike, *, on_listening: Callable[[str], None] | None = None) -> int | None:
    """Start `worker`; None once started, else the exit code (the worker cleaned up)."""
    try:
        worker.start(on_listening=on_listening)
    except Exception as exc:
        log.error("Stopping due to error: %s", exc, exc_info=not isinstance(exc, ConnectError))
        return EXIT_STARTUP_ERROR
    return None
