"""The `kconnect ctl` command line: the parsers of every verb and the loop that runs one.

Data goes to stdout, errors to stderr; the exit code is the `errors` type's (0 ok, 1 the cluster said no,
2 usage, 3 unreachable, 4 not found). `--watch` re-runs `get connectors` or `describe` until Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from collections.abc import Callable

from ctl import (
    commands_admin,
    commands_config,
    commands_history,
    commands_mirror,
    commands_read,
    commands_write,
    contexts,
)
from ctl.client import ConnectClient
from ctl.connector_files import read_definition
from ctl.errors import EXIT_OK, CtlError, InvalidConfigError, UsageError
from ctl.parsers import add_verbs, cluster_options

Command = Callable[[ConnectClient], str]
CLEAR_SCREEN = "\x1b[H\x1b[2J"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ctl",
        parents=[cluster_options()],
        help="manage any Kafka Connect cluster over its REST API (like kcctl)",
        description="A kcctl-style client of a Kafka Connect REST API. Cluster: --url, --context, $KCONNECT_URL, "
        "or the current context of $KCONNECT_CTL_CONFIG (default ~/.config/kconnect/ctl.json). Exit codes: 0 ok, "
        "1 the cluster answered with an error, 2 usage error, 3 cannot reach the cluster, 4 not found.",
    )
    add_verbs(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # httpx logs every request at INFO; the command's own output says what happened.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        if args.verb == "config":
            _print(_config_command(args))
            return EXIT_OK
        command = _command(args)
        context = contexts.resolve(args.url, args.context, os.environ, contexts.load(contexts.config_path(os.environ)))
        client = ConnectClient(context, timeout=args.timeout)
        try:
            if getattr(args, "watch", None):
                return _watch(command, client, args.watch)
            _print(command(client))
        finally:
            client.close()
    except InvalidConfigError as exc:
        _print(exc.report)
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except CtlError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    return EXIT_OK


def _print(text: str) -> None:
    if text:
        print(text, flush=True)


class _Interrupted(Exception):
    """Ctrl-C between two refreshes of `--watch`."""


def _watch(command: Command, client: ConnectClient, seconds: float) -> int:
    """Refresh until Ctrl-C. The signal never interrupts a request: a KeyboardInterrupt raised inside httpx can
    leave its connection pool's lock held (between the lock's acquire and its `with` block), and the client's
    close would then wait for ever. Ctrl-C during a request ends the loop once it is answered; a second one
    exits at once."""
    clear = CLEAR_SCREEN if sys.stdout.isatty() else ""
    requesting = interrupted = False

    def on_interrupt(signum: int, frame: object) -> None:
        nonlocal interrupted
        if not requesting:
            raise _Interrupted
        if interrupted:
            os._exit(EXIT_OK)  # every table printed so far is flushed
        interrupted = True

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        while not interrupted:
            requesting = True
            text = command(client)
            requesting = False
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            print(f"{clear}Every {seconds:g}s: {client.url}  {stamp}\n\n{text}\n", flush=True)
            if not interrupted:
                time.sleep(seconds)
    except _Interrupted:
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
    return EXIT_OK


def _command(args: argparse.Namespace) -> Command:
    """The verb of `args` as a function of the client."""
    verb, output = args.verb, args.output
    if verb == "get":
        getter = {
            "connectors": commands_read.get_connectors,
            "plugins": commands_read.get_plugins,
            "loggers": commands_read.get_loggers,
        }[args.resource]
        return lambda client: getter(client, output)
    if verb == "describe":
        return lambda client: commands_read.describe_connector(client, _connector(args.target), output)
    if verb == "apply":
        definition = read_definition(args.file, args.name)
        return lambda client: commands_write.apply(client, definition, dry_run=args.dry_run, output=output)
    if verb == "validate":
        config = read_definition(args.file, args.name).config
        return lambda client: commands_write.validate(client, config, output)
    if verb == "patch":
        return lambda client: commands_write.patch(client, _connector(args.target), args.set, args.remove)
    if verb in ("pause", "resume", "stop"):
        return lambda client: commands_write.lifecycle(client, verb, _connector(args.target))
    if verb == "restart":
        return _restart(args)
    if verb == "delete":
        return lambda client: commands_write.delete(client, _connector(args.target))
    if verb == "history":
        return lambda client: commands_history.history(client, _connector(args.target), output)
    if verb == "rollback":
        return lambda client: commands_history.rollback(client, _connector(args.target), args.to)
    if verb == "offsets":
        return _offsets(args)
    if verb == "mirror" and args.action == "status":
        return lambda client: commands_mirror.mirror_status(client, output)
    if verb == "mirror":
        return lambda client: commands_mirror.mirror_translate(
            client, args.group, args.flow, apply=args.apply, output=output
        )
    if verb == "logs":
        return lambda client: commands_admin.logger_level(client, args.logger, args.set, args.scope, output)
    raise UsageError(f"Unknown verb {verb}")


def _connector(target: list[str]) -> str:
    """`NAME` or `connector NAME`, as kcctl writes it."""
    if len(target) == 2 and target[0] in ("connector", "connectors"):
        return target[1]
    if len(target) == 1:
        return target[0]
    raise UsageError(f"Expected a connector NAME (or `connector NAME`), got: {' '.join(target)}")


def _restart(args: argparse.Namespace) -> Command:
    if len(args.target) == 2 and args.target[0] == "task":
        task = args.target[1]
        return lambda client: commands_write.restart_task(client, task)
    name = _connector(args.target)
    return lambda client: commands_write.restart_connector(client, name, args.tasks, args.output)


def _offsets(args: argparse.Namespace) -> Command:
    name = args.connector
    if args.action == "get":
        return lambda client: commands_admin.offsets_get(client, name, args.output)
    if args.action == "reset":
        return lambda client: commands_admin.offsets_reset(client, name)
    file_text = None
    if args.file is not None:
        file_text = sys.stdin.read() if args.file == "-" else _read(args.file)
    offsets = commands_admin.offsets_from_options(
        file_text, args.topic, args.partition, args.offset, args.source_partition, args.source_offset
    )
    return lambda client: commands_admin.offsets_alter(client, name, offsets)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as source:
            return source.read()
    except OSError as exc:
        raise UsageError(f"Cannot read {path}: {exc.strerror or exc}") from exc


def _config_command(args: argparse.Namespace) -> str:
    path = contexts.config_path(os.environ)
    action = args.action
    if action == "set-context":
        return commands_config.set_context(path, args.name, args.url, args.user, args.password, args.ca_file)
    if action == "use-context":
        return commands_config.use_context(path, args.name)
    if action == "delete-context":
        return commands_config.delete_context(path, args.name)
    if action == "get-contexts":
        return commands_config.get_contexts(path)
    return commands_config.current_context(path)
