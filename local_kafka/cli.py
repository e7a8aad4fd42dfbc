"""`kconnect kafka start|stop|status|fetch`: the command-line face of LocalKafka.

Exit codes: 0 success (status: every node runs), 1 failure or not running, 2 a missing tool.
`start` prints the bootstrap servers as its last stdout line so scripts can take `| tail -1`.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path

from local_kafka.cluster import DEFAULT_DIR, LocalKafka
from local_kafka.config import DEFAULT_PORT, NODE_COUNTS
from local_kafka.errors import LocalKafkaError, ToolMissingError
from local_kafka.jars import default_version, fetch_jars
from local_kafka.security import SECURITY_MODES

PROG = "kconnect kafka"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("kafka", help="run a local Apache Kafka cluster (KRaft) for development and tests")
    actions = parser.add_subparsers(dest="kafka_action", required=True, metavar="{start,stop,status,fetch}")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="state directory (default: %(default)s)")
    common.add_argument("--nodes", type=int, choices=NODE_COUNTS, default=1, help="number of nodes (default: 1)")
    common.add_argument("--port", type=int, default=DEFAULT_PORT, help="first broker port (default: %(default)s)")
    common.add_argument(
        "--controller-port", type=int, default=None, help="first controller port (default: --port + 100)"
    )
    common.add_argument("--kafka-version", default=None, help="Apache Kafka version (default: pom.xml's)")

    start = actions.add_parser("start", parents=[common], help="format storage if needed and start the nodes")
    start.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for the brokers")
    start.add_argument(
        "--security",
        choices=SECURITY_MODES,
        default=None,
        help="add a secured listener (--port + 200): TLS with SCRAM-SHA-512 users, or TLS with client "
        "certificates; its client settings are written to <dir>/security/client.properties",
    )
    start.set_defaults(func=_start)
    stop = actions.add_parser("stop", parents=[common], help="stop the nodes started from --dir")
    stop.add_argument("--timeout", type=float, default=30.0, help="seconds between SIGTERM and SIGKILL")
    stop.set_defaults(func=_stop)
    actions.add_parser("status", parents=[common], help="show whether each node runs").set_defaults(func=_status)
    fetch = actions.add_parser("fetch", help="resolve the broker jars from Maven Central into the cache")
    fetch.add_argument("--kafka-version", default=None, help="Apache Kafka version (default: pom.xml's)")
    fetch.set_defaults(func=_fetch)


Handler = Callable[[argparse.Namespace], int]


def _guarded(handler: Handler) -> Handler:
    """Errors become one readable stderr line (plus the log tail it carries), never a traceback."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ToolMissingError as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            return 2
        except (LocalKafkaError, ValueError) as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            return 1

    return run


def _cluster(args: argparse.Namespace, *, prefer_recorded: bool) -> LocalKafka:
    # stop/status follow what the last start recorded, so they need only --dir.
    recorded = LocalKafka.from_directory(args.dir) if prefer_recorded else None
    return recorded or LocalKafka(
        args.dir,
        args.nodes,
        args.port,
        controller_port=args.controller_port,
        version=args.kafka_version,
        start_timeout=getattr(args, "timeout", 90.0),
        security=getattr(args, "security", None),
    )


@_guarded
def _start(args: argparse.Namespace) -> int:
    cluster = _cluster(args, prefer_recorded=False)
    bootstrap = cluster.start()
    files = cluster.security_files
    if files is not None:
        print(f"secured listener ({files.protocol}): {cluster.secure_bootstrap_servers}")
        print(f"its client settings, with Kafka's keys: {files.client_properties}")
    print(bootstrap)
    return 0


@_guarded
def _stop(args: argparse.Namespace) -> int:
    cluster = _cluster(args, prefer_recorded=True)
    ended = cluster.stop(timeout=args.timeout)
    print(f"stopped pid(s) {', '.join(map(str, ended))}" if ended else f"nothing running in {cluster.directory}")
    return 0


@_guarded
def _status(args: argparse.Namespace) -> int:
    cluster = _cluster(args, prefer_recorded=True)
    status = cluster.status()
    for node in status.nodes:
        state = f"running (pid {node.pid})" if node.running else "not running"
        print(f"node {node.node_id} {node.address}: {state}")
    print(f"bootstrap servers: {status.bootstrap_servers}" if status.running else f"not running in {cluster.directory}")
    return 0 if status.running else 1


@_guarded
def _fetch(args: argparse.Namespace) -> int:
    version = args.kafka_version or default_version()
    print(fetch_jars(version))
    return 0
