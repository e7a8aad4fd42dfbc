"""The Prometheus JMX exporter's Java agent (`io.prometheus.jmx:jmx_prometheus_javaagent`) from Maven
Central, and a rules file that names Kafka Connect's MBeans as Strimzi's rules do, so Java Connect serves
the same metrics kconnect serves at `/metrics` and their scrapes can be timed side by side."""

from __future__ import annotations

import logging
from pathlib import Path

from bench.java_connect.jars import MARKER, copy_dependencies, fingerprint
from local_kafka.jars import cache_root

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("jmx-exporter-pom.xml")
ARTIFACT = "jmx_prometheus_javaagent"

RULES = Path(__file__).with_name("jmx-exporter-rules.yaml")


def fetch(version: str, cache: Path | None = None) -> Path:
    """The agent jar, resolved with `mvn` unless cached (`version`: Kafka's, passed like every descriptor's)."""
    home = (cache or cache_root()) / "jmx-exporter"
    libs = home / "libs"
    marker = home / MARKER
    expected = fingerprint(POM, version, b"agent")
    if not (marker.exists() and marker.read_text().strip() == expected):
        log.info("resolving the Prometheus JMX exporter agent from Maven Central into %s", home)
        copy_dependencies(POM, version, home, libs, ARTIFACT, ARTIFACT)
        marker.write_text(expected + "\n")
    return next(libs.glob(f"{ARTIFACT}-*.jar"))


def agent_option(jar: Path, port: int) -> str:
    """The `-javaagent` option serving Java Connect's MBeans on 127.0.0.1:`port` with the rules beside this."""
    return f"-javaagent:{jar}=127.0.0.1:{port}:{RULES}"
