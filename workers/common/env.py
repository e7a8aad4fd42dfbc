"""Worker settings from environment variables: the scheme of Apache Kafka's own Docker image, prefix `KCONNECT_`.

A worker key becomes a variable name like this:

| in the key | in the variable     | example                                                     |
|------------|---------------------|-------------------------------------------------------------|
| `.`        | `_`                 | `bootstrap.servers` ↔ `KCONNECT_BOOTSTRAP_SERVERS`          |
| `_`        | `__` (two)          | `foo_bar` ↔ `KCONNECT_FOO__BAR`                             |
| `-`        | `___` (three)       | `my-plugin.key` ↔ `KCONNECT_MY___PLUGIN_KEY`                |
| letters    | upper case          | keys are read back in lower case                            |

then `KCONNECT_` in front. Reading a variable back, each run of underscores is one separator: one is
`.`, two are `_`, three are `-`; a longer run is read three at a time from the left (four are `-.`).
So a key with two separators side by side (`a._b`) has no exact variable name: put such keys in the
properties file. Variables override the properties file; the file overrides the defaults.

Both modes read them, standalone (`kconnect standalone`) as distributed (`kconnect worker`).

A few `KCONNECT_` variables belong to the parts of kconnect that share the worker's environment rather
than to the worker's settings (`RESERVED`, each named by its owner): they are never read as worker keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from local_kafka.jars import KAFKA_VERSION_ENV
from local_kafka.maven import CACHE_DIR_ENV
from rest.extensions.basic_auth.jaas import KCONNECT_JAAS_ENV

PREFIX = "KCONNECT_"
RESERVED = frozenset(
    {
        CACHE_DIR_ENV,  # the local Kafka launcher's jar cache
        KAFKA_VERSION_ENV,  # the Kafka version it starts
        KCONNECT_JAAS_ENV,  # the basic-auth extension's JAAS file
        "KCONNECT_PLUGIN_WHEELS",  # the container image's directory of plug-in wheels (docker/entrypoint.sh)
    }
)

_UNDERSCORE_RUN = re.compile(r"_+")
_BY_RUN_LENGTH = {1: ".", 2: "_", 3: "-"}
_TO_ENV = str.maketrans({".": "_", "_": "__", "-": "___"})


def env_name(key: str) -> str:
    """The variable that sets `key`: `bootstrap.servers` → `KCONNECT_BOOTSTRAP_SERVERS`."""
    return PREFIX + key.translate(_TO_ENV).upper()


def key_of(variable: str) -> str | None:
    """The worker key a variable sets, or None if it is not a worker variable."""
    if not variable.startswith(PREFIX) or variable in RESERVED:
        return None
    body = variable[len(PREFIX) :]
    if not body or body.startswith("_") or body.endswith("_"):
        return None
    return _UNDERSCORE_RUN.sub(lambda run: _separators(len(run.group())), body).lower()


def _separators(length: int) -> str:
    full, rest = divmod(length, 3)
    return "-" * full + _BY_RUN_LENGTH.get(rest, "")


def settings_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    """Every worker key set through `environ`, as key → value."""
    result: dict[str, str] = {}
    for variable in sorted(environ):
        key = key_of(variable)
        if key is not None:
            result[key] = environ[variable]
    return result


def merge(file_props: Mapping[str, str], environ: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The properties file overlaid with the environment; also returns the keys the environment set."""
    from_env = settings_from_env(environ)
    return {**file_props, **from_env}, sorted(from_env)
