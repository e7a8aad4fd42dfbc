"""`kconnect mirror mm2.properties [--clusters B ...]`: MirrorMaker 2's dedicated mode, like Kafka's
connect-mirror-maker.

The file is Java's mm2.properties (`clusters`, `<alias>.<key>`, `<source>-><target>.<key>`, top-level
defaults: `connect.mirror.dedicated_config`); `KCONNECT_*` environment variables overlay it as they overlay a
worker's file (`KCONNECT_LISTENERS` gives each process on one machine its own port). `--clusters` limits the
process to the flows into the named target clusters. SIGTERM or SIGINT leaves every flow's cluster gracefully.

Exit codes: 0 after a graceful stop, 2 if MirrorMaker could not start (bad file, no flow, a connector config
refused, Kafka unreachable).
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from connect.api.errors import ConnectError
from workers.common.signals import run_until_signalled
from workers.distributed.cli import EXIT_STARTUP_ERROR, start

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mirror",
        help="run MirrorMaker 2 in dedicated mode (like Kafka's connect-mirror-maker)",
        description="Mirror topics, consumer group offsets and heartbeats between Kafka clusters as "
        "mm2.properties describes. Processes started with the same file form one cluster per flow. REST on "
        "`listeners` (default http://:8083): each flow's Connect API under /<source>/<target>.",
    )
    parser.add_argument("mm2_properties", type=Path, help="MirrorMaker 2 config (connect-mirror-maker's keys)")
    parser.add_argument(
        "--clusters", nargs="+", metavar="CLUSTER", help="target clusters whose flows this process runs (default: all)"
    )
    parser.add_argument("--log-level", default="INFO", help="root log level (default: %(default)s)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so that other subcommands do not load the runtime and FastAPI.
    from connect.mirror.dedicated_config import MirrorMakerConfig
    from workers.common.logs import configure_logging, format_from_environment
    from workers.common.worker_props import load_worker_props
    from workers.mirror.process import MirrorMaker

    logs = configure_logging(str(args.log_level).upper(), format_from_environment(os.environ))
    try:
        props = load_worker_props(args.mm2_properties, os.environ).props
        mirror = MirrorMaker(MirrorMakerConfig(props), args.clusters)
    except (OSError, ConnectError) as exc:
        log.error("Stopping due to error: %s", exc)
        return EXIT_STARTUP_ERROR
    log.info("Kafka MirrorMaker: flows %s", ", ".join(str(flow) for flow in mirror.flows))
    return run_until_signalled(
        lambda: start(mirror, on_listening=logs.identify), mirror.stop, stopping="leaving every flow's cluster"
    )
