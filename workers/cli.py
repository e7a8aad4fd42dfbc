"""The `kconnect` command: an argparse front whose subcommands each live in their own module.

To add a subcommand, write `register(subparsers)` in its module (it adds a parser and sets
`func=<handler(args) -> exit code>`) and append it to REGISTRARS.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Sequence

from ctl import cli as ctl_cli
from local_kafka import cli as kafka_cli
from workers import new_connector
from workers.common import health_check
from workers.distributed import cli as distributed_cli
from workers.mirror import cli as mirror_cli
from workers.standalone import cli as standalone_cli

Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

REGISTRARS: list[Registrar] = [
    kafka_cli.register,
    standalone_cli.register,
    distributed_cli.register,
    mirror_cli.register,
    health_check.register,
    ctl_cli.register,
    new_connector.register,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kconnect", description="A Kafka Connect-style connector platform.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for register in REGISTRARS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
