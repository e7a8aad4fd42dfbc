"""Debezium's PostgreSQL connector as Java Kafka Connect runs it, for the tests that compare kconnect's change
events with Debezium's: its plug-in archive from Maven Central (every jar the plug-in needs; resolving the
plain jar with its dependencies fails on an optional storage module that is not served), unpacked once into
a cache outside the repository."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from local_kafka.maven import cache_root

VERSION = "3.6.1.Final"
ARTIFACT = f"io.debezium:debezium-connector-postgres:{VERSION}:tar.gz:plugin"
CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector"
_MARKER = ".kconnect-complete"


def plugin_path(cache: Path | None = None) -> Path:
    """A `plugin.path` directory holding Debezium's PostgreSQL connector, fetched with `mvn` unless cached."""
    home = (cache or cache_root()) / f"debezium-postgres-{VERSION}"
    if (home / _MARKER).exists():
        return home
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("`mvn` not found: install Apache Maven 3.6+ (Debian: apt-get install maven)")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="kconnect-debezium-") as download:
        done = subprocess.run(
            [mvn, "-q", "-B", "dependency:copy", f"-Dartifact={ARTIFACT}", f"-DoutputDirectory={download}"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=download,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mvn could not resolve {ARTIFACT}:\n{(done.stdout + done.stderr)[-2000:]}")
        (archive,) = Path(download).glob("*.tar.gz")
        with tarfile.open(archive) as packed:
            packed.extractall(home, filter="data")
    (home / _MARKER).write_text(ARTIFACT)
    return home
