"""`kconnect health [worker.properties] [--user NAME]`: ask this machine's worker for `/health`, the way the
container's HEALTHCHECK does, through whatever the worker's own config secures its REST API with.

It reads the worker's settings as the worker does (the file, then `KCONNECT_*` variables) and calls the
first regular listener on this machine: over TLS when it is https, trusting the worker's trust store (the
system's if none; the certificate chain is checked, not the host name, since the call goes to the local
address), presenting the worker's key store when it has one; with Basic credentials when
`rest.extension.classes` runs the basic-auth extension, taken from the credentials file that the worker's
JAAS file names (user `--user`, by default the file's first). Exit 0 when the worker answers 200, else 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import ssl
from collections.abc import Mapping
from pathlib import Path

import httpx

from connect.api.errors import ConfigError
from connect.runtime.config.java_properties import read_properties
from connect.runtime.config.worker_config import WorkerConfig
from rest.extensions.basic_auth.extension import LOGIN_CONTEXT
from rest.extensions.basic_auth.jaas import jaas_file_from_environment, read_jaas_file
from rest.listeners.addresses import HTTPS, parse_listeners
from rest.tls import TlsSettings, client_context
from workers.common.worker_props import load_worker_props

EXIT_HEALTHY = 0
EXIT_UNHEALTHY = 1
_BASIC_AUTH_EXTENSION = "BasicAuthSecurityRestExtension"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("health", help="check this machine's worker through its own REST security")
    parser.add_argument("worker_properties", nargs="?", type=Path, help="the worker's properties file")
    parser.add_argument("--user", help="the basic-auth user (default: the credentials file's first)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the answer")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    logging.getLogger().setLevel(logging.ERROR)  # the worker's own start-up warnings are not this command's
    try:
        props = load_worker_props(args.worker_properties, os.environ).props
        healthy, message = check_health(props, os.environ, user=args.user, timeout=args.timeout)
    except (ConfigError, OSError) as exc:
        print(f"Cannot check the worker's health: {exc}")
        return EXIT_UNHEALTHY
    print(message)
    return EXIT_HEALTHY if healthy else EXIT_UNHEALTHY


def check_health(
    props: Mapping[str, str], environ: Mapping[str, str], *, user: str | None = None, timeout: float = 5.0
) -> tuple[bool, str]:
    """(whether `/health` answered 200, what it said). ConfigError if the worker's settings are unusable."""
    config = WorkerConfig.from_props(props)
    listener = parse_listeners(",".join(config.listeners))[0]
    host = listener.host.strip("[]")
    host = "127.0.0.1" if host in ("", "0.0.0.0") else ("::1" if host == "::" else host)
    shown = f"[{host}]" if ":" in host else host
    url = f"{listener.protocol}://{shown}:{listener.port}/health"
    verify: ssl.SSLContext | bool = True
    if listener.protocol == HTTPS:
        verify = client_context(TlsSettings.for_listeners(config.originals))
        verify.check_hostname = False
    auth = _basic_credentials(config, environ, user)
    try:
        response = httpx.get(url, verify=verify, auth=auth, timeout=timeout)
    except httpx.HTTPError as exc:
        return False, f"{url}: {exc}"
    return response.status_code == 200, f"{url}: {response.status_code} {response.text}"


def _basic_credentials(config: WorkerConfig, environ: Mapping[str, str], user: str | None) -> tuple[str, str] | None:
    extensions = [name.rsplit(".", 1)[-1] for name in config.get("rest.extension.classes") or []]
    if _BASIC_AUTH_EXTENSION not in extensions:
        return None
    jaas_file = jaas_file_from_environment(environ)
    if jaas_file is None:
        raise ConfigError("The worker uses basic auth but no JAAS file is set (KAFKA_OPTS or KCONNECT_JAAS_CONFIG)")
    entries = read_jaas_file(jaas_file).get(LOGIN_CONTEXT) or []
    for entry in entries:
        users = read_properties(entry.options.get("file", ""))
        if user is None and users:
            return next(iter(users.items()))
        if user is not None and user in users:
            return user, users[user]
    raise ConfigError(f"No credentials for {user or 'any user'} in the files named by '{jaas_file}'")
