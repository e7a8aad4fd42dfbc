"""`kconnect standalone worker.properties [connector1.properties connector2.json ...]`: Kafka's connect-standalone.

The worker file takes Kafka Connect's worker keys (`bootstrap.servers`, converters, `listeners`,
`offset.storage.file.filename`, `producer.*`/`consumer.*` client settings, ...). Each connector file is a
properties file, a flat JSON map, or JSON in the `POST /connectors` shape; they are created at every start
(standalone keeps connector configs in memory only, as Kafka does), while source offsets survive restarts
in the offsets file. Every worker setting can also come from a `KCONNECT_*` environment variable, which
wins over the file (`workers.common.env`: `bootstrap.servers` is `KCONNECT_BOOTSTRAP_SERVERS`), as in
distributed mode. SIGTERM or SIGINT stops everything gracefully, with a final offset commit.

Exit codes as Kafka's: 0 after a graceful stop, 2 if the worker could not start, 3 if a connector file
could not be read or its connector created.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from connect.api.errors import ConnectError
from workers.common.properties import ConnectorFile, load_connector_file
from workers.common.signals import run_until_signalled
from workers.common.worker_props import load_worker_props

if TYPE_CHECKING:
    from workers.standalone.process import StandaloneWorker

log = logging.getLogger(__name__)

EXIT_STARTUP_ERROR = 2
EXIT_CONNECTOR_ERROR = 3


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "standalone",
        help="run a standalone worker (like Kafka's connect-standalone)",
        description="Run one worker with its connectors; REST on `listeners` (default http://:8083). Every worker "
        "setting can also be given as an environment variable, which wins over the file: KCONNECT_ + the key in "
        "upper case, '.' as '_', '_' as '__', '-' as '___' (bootstrap.servers: KCONNECT_BOOTSTRAP_SERVERS).",
    )
    parser.add_argument("worker_properties", type=Path, help="worker config (Kafka Connect's worker keys)")
    parser.add_argument(
        "connector_files",
        type=Path,
        nargs="*",
        metavar="connector_file",
        help="connector configs to create at start: .properties, or .json (flat map or POST /connectors body)",
    )
    parser.add_argument("--log-level", default="INFO", help="root log level (default: %(default)s)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so that other subcommands (`kconnect kafka ...`) do not load the runtime and FastAPI.
    from connect.runtime.config.worker_config import LOG_FORMAT
    from workers.common.logs import configure_logging, format_from_environment
    from workers.standalone.process import StandaloneWorker

    level = str(args.log_level).upper()
    configure_logging(level, format_from_environment(os.environ))
    try:
        loaded = load_worker_props(args.worker_properties, os.environ)
        worker = StandaloneWorker.from_props(loaded.props)
    except (OSError, ConnectError) as exc:
        log.error("Stopping due to error: %s", exc)
        return EXIT_STARTUP_ERROR
    logs = configure_logging(level, str(worker.config.get(LOG_FORMAT)))
    try:
        connectors = [load_connector_file(path) for path in args.connector_files]
    except ConnectError as exc:
        log.error("Stopping after connector error: %s", exc)
        return EXIT_CONNECTOR_ERROR
    return run_until_signalled(
        lambda: start(worker, connectors, on_listening=logs.identify),
        worker.stop,
        stopping="stopping connectors and tasks",
    )


def start(
    worker: StandaloneWorker, connectors: list[ConnectorFile], *, on_listening: Callable[[str], None] | None = None
) -> int | None:
    """Start `worker` with `connectors`; None once started, else Kafka's exit code (the worker cleaned up)."""
    try:
        worker.start(connectors, on_listening=on_listening)
    except ConnectError as exc:
        # A connector that could not be created (the worker itself started): Kafka's exit code 3.
        log.error("Stopping after connector error: %s", exc)
        return EXIT_CONNECTOR_ERROR if worker.herder is not None else EXIT_STARTUP_ERROR
    except Exception:
        log.exception("Stopping due to error")
        return EXIT_STARTUP_ERROR
    return None
