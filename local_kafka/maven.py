"""Jars named by a Maven descriptor, resolved from Maven Central with `mvn` into a cache outside the repo.

Used for every Java component the project runs for real (the Kafka broker, the test HDFS, ...). The
cache holds one `<name>-<version>/libs` directory per version, completed by a marker file recording
which descriptor produced it: a warm fetch is a file read, a changed descriptor triggers a fresh
resolve, and an interrupted one never looks complete. A file lock serialises concurrent fetches
(`make setup` and a test fixture, or two test sessions).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MARKER = ".kconnect-complete"
CACHE_DIR_ENV = "KCONNECT_CACHE_DIR"
_POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def cache_root() -> Path:
    """`$KCONNECT_CACHE_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/kconnect`."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kconnect"


@dataclass(frozen=True)
class MavenJars:
    """One jar set: `name` names the cache directory, `version_property` the pom property to override."""

    name: str
    pom: Path
    version_property: str
    version_env: str
    # Proves a resolve really produced the jars (mvn can exit 0 having copied nothing useful).
    is_complete: Callable[[Path, str], bool]
    error: type[Exception]

    def default_version(self) -> str:
        """The env override, else the version property of the descriptor."""
        override = os.environ.get(self.version_env)
        if override:
            return override
        node = ET.parse(self.pom).getroot().find(f"m:properties/m:{self.version_property}", _POM_NS)
        if node is None or not node.text:
            raise self.error(f"{self.pom} has no <{self.version_property}> property")
        return node.text.strip()

    def libs_dir(self, version: str, cache: Path | None = None) -> Path:
        return (cache or cache_root()) / f"{self.name}-{version}" / "libs"

    def fingerprint(self, version: str) -> str:
        """What the completion marker holds: it changes with the version and with the descriptor's content."""
        return hashlib.sha256(version.encode() + b"\0" + self.pom.read_bytes()).hexdigest()

    def is_fetched(self, version: str, cache: Path | None = None) -> bool:
        try:
            return (self.libs_dir(version, cache) / MARKER).read_text().strip() == self.fingerprint(version)
        except OSError:
            return False

    def fetch(self, mvn: Callable[[], str], version: str | None = None, cache: Path | None = None) -> Path:
        """The directory holding the jars, resolving them unless cached; `mvn()` gives the tool's path
        (or raises the caller's own "install Maven" error) and is called only when a resolve is needed."""
        version = version or self.default_version()
        target = self.libs_dir(version, cache)
        if self.is_fetched(version, cache):
            return target
        tool = mvn()
        with _exclusive(target.parent / ".lock"):
            if self.is_fetched(version, cache):
                return target
            log.info("resolving %s %s jars from Maven Central into %s", self.name, version, target)
            staging = target.parent / f"libs.partial-{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            # mvn runs on a copy of the descriptor so nothing (target/, resolver state) lands in the repo.
            pom_copy = target.parent / "pom.xml"
            shutil.copyfile(self.pom, pom_copy)
            command = [
                tool,
                "--batch-mode",
                "--quiet",
                "-Dstyle.color=never",
                "-f",
                str(pom_copy),
                "dependency:copy-dependencies",
                "-DincludeScope=runtime",
                f"-DoutputDirectory={staging}",
                f"-D{self.version_property}={version}",
            ]
            result = subprocess.run(command, capture_output=True, text=True, check=False)
            if result.returncode != 0 or not self.is_complete(staging, version):
                shutil.rmtree(staging, ignore_errors=True)
                tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
                raise self.error(f"mvn could not resolve {self.name} {version}:\n{tail}")
            (staging / MARKER).write_text(self.fingerprint(version) + "\n")
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)
        return target


@contextmanager
def _exclusive(lock_file: Path) -> Iterator[None]:
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def classpath(libs: Path) -> str:
    """A `java -cp` value; the wildcard keeps the command line short enough to read in `ps`."""
    return str(libs / "*")
