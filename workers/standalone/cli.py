"""`kconnect standalone worker.properties [connector1.properties connector2.json ...]`: Kafka's connect-standalone.

The worker file takes Kafka Connect's worker keys (`bootstrap.servers`, converters, `listeners`,
`offset.storage.file.filename`, `producer.*`/`consumer.*` client settings, ...). Each connector file is a
properties file, a flat JSON map, or JSON in the `POST /connectors` shape; they are created at every start
(standalone keeps connector configs in memory only, as Kafka does), while source offsets survive restarts
in the offsets file. SIGTERM or SIGINT stops everything gracefully, with a final offset commit.

Exit codes as Kafka's: 0 after a graceful stop, 2 if the worker could not start, 3 if a connector file
could not be read or its connector created.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from connect.api.errors import ConnectError
from workers.standalone.properties import ConnectorFile, load_connector_file, read_properties

if TYPE_CHECKING:
    from workers.standalone.process import StandaloneWorker

log = logging.getLogger(__name__)

EXIT_STARTUP_ERROR = 2
EXIT_CONNECTOR_ERROR = 3


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "standalone",
        help="run a standalone worker (like Kafka's connect-standalone)",
        description="Run one worker with its connectors; REST on `listeners` (default http://:8083).",
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
    from workers.standalone.logs import configure_logging
    from workers.standalone.process import StandaloneWorker

    configure_logging(str(args.log_level).upper())
    try:
        props = read_properties(args.worker_properties)
        worker = StandaloneWorker.from_props(props)
    except (OSError, ConnectError) as exc:
        log.error("Stopping due to error: %s", exc)
        return EXIT_STARTUP_ERROR
    try:
        connectors = [load_connector_file(path) for path in args.connector_files]
    except ConnectError as exc:
        log.error("Stopping after connector error: %s", exc)
        return EXIT_CONNECTOR_ERROR
    return run_until_signalled(worker, connectors)


def run_until_signalled(worker: StandaloneWorker, connectors: list[ConnectorFile]) -> int:
    """Start `worker` with `connectors`, wait for SIGTERM/SIGINT, stop gracefully; returns the exit code."""
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        if stop_requested.is_set():
            log.warning("Already stopping (signal %s again); waiting for tasks to finish", signal.Signals(signum).name)
        stop_requested.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            worker.start(connectors)
        except ConnectError as exc:
            # A connector that could not be created (the worker itself started): Kafka's exit code 3.
            log.error("Stopping after connector error: %s", exc)
            return EXIT_CONNECTOR_ERROR if worker.herder is not None else EXIT_STARTUP_ERROR
        except Exception:
            log.exception("Stopping due to error")
            return EXIT_STARTUP_ERROR
        # Event.wait without a timeout cannot be interrupted on some Pythons; wake up now and then.
        while not stop_requested.wait(1.0):
            pass
        log.info("Stop requested; stopping connectors and tasks")
        worker.stop()
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.stderr.flush()
