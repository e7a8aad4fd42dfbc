"""Apache Kafka Connect (Java), run with its own `ConnectStandalone` or `ConnectDistributed` main class
and the JVM flags its scripts use (connect-standalone.sh and connect-distributed.sh set the same ones)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.catalog import JAVA_CONNECT, SYSTEM_LABELS
from bench.java_connect.jars import ConnectJars
from bench.systems.base import WorkerMode

MAIN_CLASSES = {
    WorkerMode.STANDALONE: "org.apache.kafka.connect.cli.ConnectStandalone",
    WorkerMode.DISTRIBUTED: "org.apache.kafka.connect.cli.ConnectDistributed",
}
# connect-standalone.sh's KAFKA_HEAP_OPTS and kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS.
HEAP_OPTS = ("-Xms256M", "-Xmx2G")
JVM_OPTS = (
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:MaxInlineLevel=15",
    "-Djava.awt.headless=true",
)

# DistributedHerder logs every assignment it gets: "... Assignment{error=0, leader='connect-...',
# leaderUrl='http://127.0.0.1:8083/', ...}".
LEADER_URL = re.compile(r"leaderUrl='https?://[^:/']+:(\d+)/?'")

LOG4J2 = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c:%L)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
"""


def jvm_command(
    java: str | None,
    jars: ConnectJars,
    log_file: Path,
    main_class: str,
    properties: Path,
    kafka_opts: Sequence[str] = (),
) -> list[str]:
    """A Kafka start script's command line: its JVM flags, log4j2 logging at INFO to `log_file` (its config is
    written beside it), the jars' classpath, `main_class` and its properties file."""
    log_config = log_file.with_name("log4j2.properties")
    log_config.write_text(LOG4J2.format(log_file=log_file))
    return [
        java or "java",
        *HEAP_OPTS,
        *JVM_OPTS,
        *kafka_opts,
        f"-Dlog4j2.configurationFile={log_config}",
        "-cp",
        jars.classpath,
        main_class,
        str(properties),
    ]


class JavaConnect:
    key = JAVA_CONNECT
    label = SYSTEM_LABELS[JAVA_CONNECT]

    def __init__(self, jars: ConnectJars, version: str, kafka_opts: Sequence[str] = ()) -> None:
        """`kafka_opts`: the JVM options Kafka's start scripts take from the KAFKA_OPTS variable
        (`-Djava.security.auth.login.config=...`), placed where kafka-run-class.sh puts them."""
        self.jars = jars
        self.version = version
        self.kafka_opts = tuple(kafka_opts)
        self.java = shutil.which("java")

    def unavailable_reason(self) -> str | None:
        return None if self.java else "`java` not found on PATH"

    def mode_unavailable_reason(self, mode: WorkerMode) -> str | None:
        return None

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        # service_load: no reflective classpath scan at start-up; every Kafka plug-in jar has manifests.
        return {"plugin.path": str(self.jars.plugins), "plugin.discovery": "service_load"}

    def command(self, worker_properties: Path, workdir: Path, mode: WorkerMode = WorkerMode.STANDALONE) -> list[str]:
        return jvm_command(
            self.java, self.jars, workdir / "connect.log", MAIN_CLASSES[mode], worker_properties, self.kafka_opts
        )

    def group_leader_port(self, workdir: Path) -> int | None:
        try:
            text = (workdir / "connect.log").read_text(errors="replace")
        except OSError:
            return None
        found = LEADER_URL.findall(text)
        return int(found[-1]) if found else None

    def settings(self) -> Mapping[str, str]:
        return {
            "main_class": " or ".join(MAIN_CLASSES.values()),
            "kafka_connect_version": self.version,
            "jvm": " ".join((*HEAP_OPTS, *JVM_OPTS)),
            "plugin.discovery": "service_load",
            "log_level": "INFO to a file",
        }
