"""The argparse definitions of `kconnect ctl`'s verbs (kcctl's verbs and options where it has them)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ctl.output import FORMATS

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

DEFAULT_WATCH_SECONDS = 2.0


def _cluster_options(*, with_defaults: bool) -> argparse.ArgumentParser:
    """The options that say which cluster to ask and how to answer. `kconnect ctl` takes them before the verb
    (`kconnect ctl --url URL get connectors`, as kubectl takes its global flags), with their defaults, and each
    verb takes them again after itself with none, so that a verb's parser never resets one given before it."""

    def default(value: object) -> object:
        return value if with_defaults else argparse.SUPPRESS

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--url", default=default(None), help="the cluster's REST URL (default: $KCONNECT_URL, else the current context)"
    )
    common.add_argument(
        "--context", default=default(None), help="a named context of the config file instead of the current one"
    )
    common.add_argument(
        "-o", "--output", choices=FORMATS, default=default("table"), help="output format (default: table)"
    )
    common.add_argument(
        "--timeout", type=float, default=default(30.0), help="seconds to wait for an answer (default: 30)"
    )
    return common


def _watch_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-w",
        "--watch",
        type=float,
        nargs="?",
        const=DEFAULT_WATCH_SECONDS,
        metavar="SECONDS",
        help=f"refresh every SECONDS (default {DEFAULT_WATCH_SECONDS:g}) until Ctrl-C",
    )


def cluster_options() -> argparse.ArgumentParser:
    """The cluster options with their defaults, for `kconnect ctl`'s own parser (before the verb)."""
    return _cluster_options(with_defaults=True)


def add_verbs(parser: argparse.ArgumentParser) -> None:
    common = _cluster_options(with_defaults=False)
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    get = verbs.add_parser("get", parents=[common], help="list connectors, plug-ins or loggers")
    get.add_argument("resource", choices=("connectors", "plugins", "loggers"))
    _watch_option(get)

    describe = verbs.add_parser("describe", parents=[common], help="config, status, tasks, topics, offsets")
    describe.add_argument("target", nargs="+", metavar="connector NAME")
    _watch_option(describe)

    for name, text in (("apply", "create or update a connector from a file"), ("validate", "validate a config")):
        sub = verbs.add_parser(name, parents=[common], help=text)
        sub.add_argument("-f", "--file", required=True, help="JSON or .properties connector config; - for stdin")
        sub.add_argument("-n", "--name", help="the connector's name (default: the file's 'name')")
        if name == "apply":
            sub.add_argument("--dry-run", action="store_true", help="validate only, change nothing")

    patch = verbs.add_parser("patch", parents=[common], help="change some keys of a connector's config")
    patch.add_argument("target", nargs="+", metavar="connector NAME")
    patch.add_argument("-s", "--set", action="append", default=[], metavar="KEY=VALUE")
    patch.add_argument("-r", "--remove", action="append", default=[], metavar="KEY")

    for name in ("pause", "resume", "stop", "delete"):
        sub = verbs.add_parser(name, parents=[common], help=f"{name} a connector")
        sub.add_argument("target", nargs="+", metavar="[connector] NAME")

    restart = verbs.add_parser("restart", parents=[common], help="restart a connector (and tasks) or one task")
    restart.add_argument("target", nargs="+", metavar="[connector] NAME | task CONNECTOR/N")
    restart.add_argument("-t", "--tasks", choices=("all", "failed"), help="restart its tasks too: all or failed only")

    history = verbs.add_parser("history", parents=[common], help="a connector's config versions, who wrote each")
    history.add_argument("target", nargs="+", metavar="[connector] NAME")
    rollback = verbs.add_parser(
        "rollback", parents=[common], help="put an earlier version of a connector's config back"
    )
    rollback.add_argument("target", nargs="+", metavar="[connector] NAME")
    rollback.add_argument("--to", type=int, required=True, metavar="N", help="the version (from `history`)")

    _add_offsets(verbs, common)

    logs = verbs.add_parser("logs", parents=[common], help="show or set log levels (/admin/loggers)")
    logs_verbs = logs.add_subparsers(dest="logs_action", required=True, metavar="level")
    level = logs_verbs.add_parser("level", parents=[common], help="show loggers, or set one's level")
    level.add_argument("logger", nargs="?", help="a logger name (e.g. root, connect.runtime)")
    level.add_argument("--set", metavar="LEVEL", help="the new level (ERROR, WARN, INFO, DEBUG, TRACE, ...)")
    level.add_argument("--scope", choices=("worker", "cluster"), default="worker", help="default: worker")

    _add_mirror(verbs, common)
    _add_config(verbs)


def _add_mirror(verbs: Subparsers, common: argparse.ArgumentParser) -> None:
    mirror = verbs.add_parser("mirror", help="a dedicated MirrorMaker's flows: status, translated group offsets")
    actions = mirror.add_subparsers(dest="action", required=True, metavar="status|translate")
    status = actions.add_parser(
        "status", parents=[common], help="each flow's connectors, lag, heartbeat age and last checkpoint"
    )
    _watch_option(status)
    translate = actions.add_parser(
        "translate", parents=[common], help="a consumer group's offsets translated to the target cluster"
    )
    translate.add_argument("--group", required=True, help="the consumer group")
    translate.add_argument("--flow", metavar="SOURCE->TARGET", help="default: the only flow that mirrors topics")
    translate.add_argument(
        "--apply", action="store_true", help="write them to the group on the target (it must have no active member)"
    )


def _add_offsets(verbs: Subparsers, common: argparse.ArgumentParser) -> None:
    offsets = verbs.add_parser("offsets", help="get, alter or reset a connector's offsets (KIP-875)")
    actions = offsets.add_subparsers(dest="action", required=True, metavar="get|alter|reset")
    for name in ("get", "alter", "reset"):
        sub = actions.add_parser(name, parents=[common], help=f"{name} the offsets")
        sub.add_argument("connector")
        if name == "alter":
            sub.add_argument("-f", "--file", help='JSON {"offsets": [...]} as Kafka takes it; - for stdin')
            sub.add_argument("--topic", help="sink connectors: the topic")
            sub.add_argument("--partition", type=int, help="sink connectors: the partition")
            sub.add_argument("--offset", type=int, help="sink connectors: the next offset to consume")
            sub.add_argument("--source-partition", help="source connectors: the partition as JSON")
            sub.add_argument("--source-offset", help="source connectors: the offset as JSON")


def _add_config(verbs: Subparsers) -> None:
    config = verbs.add_parser("config", help="named clusters (contexts) in the config file")
    actions = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    set_context = actions.add_parser("set-context", help="add or change a context")
    set_context.add_argument("name")
    set_context.add_argument("--url", help="the cluster's REST URL")
    set_context.add_argument("--user", help="basic-auth user")
    set_context.add_argument("--password", help="basic-auth password (kept in the 0600 config file)")
    set_context.add_argument("--ca-file", help="PEM CA bundle to trust for an https:// URL")
    for name, text in (("use-context", "make a context current"), ("delete-context", "remove a context")):
        actions.add_parser(name, help=text).add_argument("name")
    actions.add_parser("get-contexts", help="list the contexts")
    actions.add_parser("current-context", help="print the current context's name")
