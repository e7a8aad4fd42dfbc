"""Resolves the Kafka broker's jars from Maven Central with `mvn` into a per-version cache outside the repo.

`pom.xml` beside this module names the classpath; the cache directory holds one `kafka-<version>/libs`
per version, completed by a marker file that records which descriptor produced it, so a warm fetch is
a file read and a changed descriptor triggers a fresh resolve.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from workers.kafka_local.errors import LocalKafkaError, require_tool

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("pom.xml")
MARKER = ".kconnect-complete"
_POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def default_version() -> str:
    """The Kafka version: env `KCONNECT_KAFKA_VERSION`, else the `kafka.version` property of pom.xml."""
    override = os.environ.get("KCONNECT_KAFKA_VERSION")
    if override:
        return override
    node = ET.parse(POM).getroot().find("m:properties/m:kafka.version", _POM_NS)
    if node is None or not node.text:
        raise LocalKafkaError(f"{POM} has no <kafka.version> property")
    return node.text.strip()


def cache_root() -> Path:
    """`$KCONNECT_CACHE_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/kconnect`."""
    explicit = os.environ.get("KCONNECT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kconnect"


def libs_dir(version: str, cache: Path | None = None) -> Path:
    return (cache or cache_root()) / f"kafka-{version}" / "libs"


def fingerprint(version: str) -> str:
    """What the completion marker holds: it changes with the version and with the descriptor's content."""
    return hashlib.sha256(version.encode() + b"\0" + POM.read_bytes()).hexdigest()


def is_fetched(version: str, cache: Path | None = None) -> bool:
    marker = libs_dir(version, cache) / MARKER
    try:
        return marker.read_text().strip() == fingerprint(version)
    except OSError:
        return False


@contextmanager
def _exclusive(lock_file: Path) -> Iterator[None]:
    # Two test sessions (or `make setup` and a fixture) may fetch the same version at once.
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch_jars(version: str | None = None, cache: Path | None = None) -> Path:
    """The directory holding the broker's runtime jars, resolving them with `mvn` unless cached.

    Idempotent: with a matching marker present this neither runs nor needs `mvn`.
    """
    version = version or default_version()
    target = libs_dir(version, cache)
    if is_fetched(version, cache):
        return target
    mvn = require_tool("mvn")
    with _exclusive(target.parent / ".lock"):
        if is_fetched(version, cache):
            return target
        log.info("resolving Apache Kafka %s jars from Maven Central into %s", version, target)
        staging = target.parent / f"libs.partial-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        # mvn runs on a copy of the descriptor so nothing (target/, resolver state) lands in the repo.
        pom_copy = target.parent / "pom.xml"
        shutil.copyfile(POM, pom_copy)
        command = [
            mvn,
            "--batch-mode",
            "--quiet",
            "-Dstyle.color=never",
            "-f",
            str(pom_copy),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={staging}",
            f"-Dkafka.version={version}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0 or not any(staging.glob("kafka_2.13-*.jar")):
            shutil.rmtree(staging, ignore_errors=True)
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            raise LocalKafkaError(f"mvn could not resolve Apache Kafka {version}:\n{tail}")
        (staging / MARKER).write_text(fingerprint(version) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target


def classpath(version: str, cache: Path | None = None) -> str:
    """A `java -cp` value; the wildcard keeps the command line short enough to read in `ps`."""
    return str(libs_dir(version, cache) / "*")
