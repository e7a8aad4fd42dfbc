"""Apache Kafka Connect (Java), run with its own `ConnectStandalone` main class and JVM flags as shipped."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from bench.catalog import JAVA_CONNECT, SYSTEM_LABELS
from bench.java_connect.jars import ConnectJars

MAIN_CLASS = "org.apache.kafka.connect.cli.ConnectStandalone"
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

LOG4J2 = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c:%L)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
"""


class JavaConnect:
    key = JAVA_CONNECT
    label = SYSTEM_LABELS[JAVA_CONNECT]

    def __init__(self, jars: ConnectJars, version: str) -> None:
        self.jars = jars
        self.version = version
        self.java = shutil.which("java")

    def unavailable_reason(self) -> str | None:
        return None if self.java else "`java` not found on PATH"

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        # service_load: no reflective classpath scan at start-up; every Kafka plug-in jar has manifests.
        return {"plugin.path": str(self.jars.plugins), "plugin.discovery": "service_load"}

    def command(self, worker_properties: Path, workdir: Path) -> list[str]:
        log_config = workdir / "log4j2.properties"
        log_config.write_text(LOG4J2.format(log_file=workdir / "connect.log"))
        return [
            self.java or "java",
            *HEAP_OPTS,
            *JVM_OPTS,
            f"-Dlog4j2.configurationFile={log_config}",
            "-cp",
            self.jars.classpath,
            MAIN_CLASS,
            str(worker_properties),
        ]

    def settings(self) -> Mapping[str, str]:
        return {
            "main_class": MAIN_CLASS,
            "kafka_connect_version": self.version,
            "jvm": " ".join((*HEAP_OPTS, *JVM_OPTS)),
            "plugin.discovery": "service_load",
            "log_level": "INFO to a file",
        }
