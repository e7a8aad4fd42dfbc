"""The Kafka broker's jars: `pom.xml` beside this module, resolved through `local_kafka.maven`."""

from __future__ import annotations

from pathlib import Path

from local_kafka.errors import LocalKafkaError, require_tool
from local_kafka.maven import MARKER, MavenJars, cache_root

__all__ = [
    "MARKER",
    "cache_root",
    "classpath",
    "default_version",
    "fetch_jars",
    "fingerprint",
    "is_fetched",
    "libs_dir",
]

KAFKA_VERSION_ENV = "KCONNECT_KAFKA_VERSION"

KAFKA_JARS = MavenJars(
    name="kafka",
    pom=Path(__file__).with_name("pom.xml"),
    version_property="kafka.version",
    version_env=KAFKA_VERSION_ENV,
    is_complete=lambda libs, _version: any(libs.glob("kafka_2.13-*.jar")),
    error=LocalKafkaError,
)


def default_version() -> str:
    """The Kafka version: env `KCONNECT_KAFKA_VERSION`, else the `kafka.version` property of pom.xml."""
    return KAFKA_JARS.default_version()


def libs_dir(version: str, cache: Path | None = None) -> Path:
    return KAFKA_JARS.libs_dir(version, cache)


def fingerprint(version: str) -> str:
    return KAFKA_JARS.fingerprint(version)


def is_fetched(version: str, cache: Path | None = None) -> bool:
    return KAFKA_JARS.is_fetched(version, cache)


def fetch_jars(version: str | None = None, cache: Path | None = None) -> Path:
    """The directory holding the broker's runtime jars; idempotent, needs `mvn` only when not cached."""
    return KAFKA_JARS.fetch(lambda: require_tool("mvn"), version, cache)


def classpath(version: str, cache: Path | None = None) -> str:
    """A `java -cp` value; the wildcard keeps the command line short enough to read in `ps`."""
    return str(libs_dir(version, cache) / "*")
