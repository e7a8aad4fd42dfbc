#!/usr/bin/env python3
"""The Kafka image's entry point (run by tini): configure the broker from the environment, format its
storage once, then replace itself with the broker's JVM.

The variables are those of the official apache/kafka image, read the same way, so a compose file can switch
between the two images (`KAFKA_IMAGE`):

- every `KAFKA_*` variable is a broker setting: the prefix dropped, lower case, `_` as `.`, `__` as `_`,
  `___` as `-` (`KAFKA_CONTROLLER_QUORUM_VOTERS` is `controller.quorum.voters`), except the JVM's ones
  (EXCLUDED);
- an unset or empty variable of DEFAULTS takes its default first: a single node, broker and controller, and
  the official image's cluster id (set `CLUSTER_ID` for anything else);
- `CLUSTER_ID` formats the storage of `log.dirs` on the first start (kafka.tools.StorageTool, as
  `kafka-storage.sh format --ignore-formatted`), so a restart keeps the data;
- `KAFKA_HEAP_OPTS`, `KAFKA_JVM_PERFORMANCE_OPTS`, `KAFKA_LOG4J_OPTS` and `KAFKA_OPTS` are JVM options, with
  the defaults of Kafka's own start scripts; `KAFKA_LOG4J_ROOT_LOGLEVEL` sets the level of the log on stdout.

Not read: the official image's mounted `/mnt/shared/config` files and its `/etc/kafka/secrets` credential
files (set `KAFKA_SSL_KEYSTORE_LOCATION` and the other TLS settings directly instead).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

PREFIX = "KAFKA_"
HOME = Path("/opt/kafka")
SERVER_PROPERTIES = HOME / "config" / "server.properties"
LOG4J_CONFIG = HOME / "config" / "log4j2.properties"
CLASSPATH = str(HOME / "libs" / "*")

# What the official image sets when the variable is unset or empty (its configureDefaults).
DEFAULTS = {
    "CLUSTER_ID": "5L6g3nShT-eMCtK--X86sw",
    "KAFKA_NODE_ID": "1",
    "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT",
    "KAFKA_LISTENERS": "PLAINTEXT://localhost:29092,CONTROLLER://localhost:29093,PLAINTEXT_HOST://0.0.0.0:9092",
    "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://localhost:29092,PLAINTEXT_HOST://localhost:9092",
    "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
    "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
    "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
    "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
    "KAFKA_PROCESS_ROLES": "broker,controller",
    "KAFKA_CONTROLLER_QUORUM_VOTERS": "1@localhost:29093",
    "KAFKA_INTER_BROKER_LISTENER_NAME": "PLAINTEXT",
    "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
    "KAFKA_LOG_DIRS": "/tmp/kraft-combined-logs",
}

# JVM and logging options, not broker settings (the official image's list, and the heap options).
EXCLUDED = frozenset(
    {
        "KAFKA_VERSION",
        "KAFKA_HEAP_OPTS",
        "KAFKA_LOG4J_OPTS",
        "KAFKA_OPTS",
        "KAFKA_JMX_OPTS",
        "KAFKA_JVM_PERFORMANCE_OPTS",
        "KAFKA_GC_LOG_OPTS",
        "KAFKA_LOG4J_ROOT_LOGLEVEL",
        "KAFKA_LOG4J_LOGGERS",
        "KAFKA_TOOLS_LOG4J_LOGLEVEL",
    }
)

# The defaults of Kafka's kafka-server-start.sh and kafka-run-class.sh.
JVM_DEFAULTS = {
    "KAFKA_HEAP_OPTS": "-Xmx1G -Xms1G",
    "KAFKA_JVM_PERFORMANCE_OPTS": "-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 "
    "-XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true",
    "KAFKA_LOG4J_OPTS": f"-Dlog4j2.configurationFile={LOG4J_CONFIG}",
}
STORAGE_TOOL_HEAP = "-Xmx256M"
# A lone underscore between two other characters: the `.` of a property name.
_SINGLE_UNDERSCORE = re.compile(r"(?<=[^_])_(?=[^_])")


class ConfigurationError(Exception):
    """The environment cannot configure a broker; the message says which variable and why."""


def with_defaults(environment: Mapping[str, str]) -> dict[str, str]:
    """`environment` with every unset or empty variable of DEFAULTS set to its default."""
    merged = dict(environment)
    for name, value in DEFAULTS.items():
        if not merged.get(name):
            merged[name] = value
    return merged


def property_name(variable: str) -> str:
    """`KAFKA_LOG_DIRS` → `log.dirs`; `__` is `_` and `___` is `-` (the official image's conversion)."""
    key = _SINGLE_UNDERSCORE.sub(".", variable.removeprefix(PREFIX))
    return key.replace("___", "-").replace("__", "_").lower()


def broker_properties(environment: Mapping[str, str]) -> dict[str, str]:
    """The broker's settings from `environment` (defaults applied first), checked as the official image does."""
    merged = with_defaults(environment)
    roles = {role.strip() for role in merged["KAFKA_PROCESS_ROLES"].split(",")}
    if roles == {"controller"} and environment.get("KAFKA_ADVERTISED_LISTENERS"):
        raise ConfigurationError("KAFKA_ADVERTISED_LISTENERS is not supported on a KRaft controller")
    properties = {
        property_name(name): value for name, value in merged.items() if name.startswith(PREFIX) and name not in EXCLUDED
    }
    if roles == {"controller"}:
        properties.pop("advertised.listeners", None)  # only the default's, refused by a controller
    for name in ("node.id", "controller.quorum.voters", "log.dirs"):
        if not properties.get(name):
            raise ConfigurationError(f"{name} is empty: set KAFKA_{name.replace('.', '_').upper()}")
    return properties


def render(properties: Mapping[str, str]) -> str:
    lines = ["# Written by the image's entry point from the KAFKA_* variables at every start."]
    lines += [f"{key}={properties[key]}" for key in sorted(properties)]
    return "\n".join(lines) + "\n"


def jvm_options(environment: Mapping[str, str]) -> list[str]:
    options: list[str] = []
    for name in ("KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_LOG4J_OPTS"):
        options += shlex.split(environment.get(name) or JVM_DEFAULTS[name])
    return options + shlex.split(environment.get("KAFKA_OPTS", ""))


def format_storage(java: str, cluster_id: str) -> None:
    """Format `log.dirs` for `cluster_id` unless it already is (then the broker checks the id at start)."""
    command = [
        java,
        STORAGE_TOOL_HEAP,
        f"-Dlog4j2.configurationFile={LOG4J_CONFIG}",
        "-cp",
        CLASSPATH,
        "kafka.tools.StorageTool",
        "format",
        "--cluster-id",
        cluster_id,
        "--config",
        str(SERVER_PROPERTIES),
        "--ignore-formatted",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ConfigurationError(f"formatting the storage failed:\n{(result.stdout + result.stderr).strip()}")


def main() -> int:
    environment = dict(os.environ)
    java = shutil.which("java")
    if java is None:
        print("kafka-run: no java on PATH", file=sys.stderr)
        return 1
    try:
        properties = broker_properties(environment)
        SERVER_PROPERTIES.write_text(render(properties))
        format_storage(java, with_defaults(environment)["CLUSTER_ID"])
    except (ConfigurationError, OSError) as exc:
        print(f"kafka-run: {exc}", file=sys.stderr)
        return 1
    command = [java, *jvm_options(environment), "-cp", CLASSPATH, "kafka.Kafka", str(SERVER_PROPERTIES)]
    os.execv(java, command)


if __name__ == "__main__":
    sys.exit(main())
