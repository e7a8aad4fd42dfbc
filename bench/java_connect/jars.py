"""Resolves Kafka Connect's Java runtime from Maven Central into a per-version cache outside the repo.

`pom.xml` beside this module names the classpath. The cache holds `connect-<version>/libs` (the
classpath), `connect-<version>/plugins/connect-file` (the FileStream connectors, loaded from
`plugin.path` as in Kafka's distribution) and `connect-<version>/tools` (Kafka's test connectors with the
kafka-server-common jar only they need; on the classpath of the workers that ask for them), completed by a
marker recording the descriptor's digest and the layout.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from local_kafka.jars import cache_root

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("pom.xml")
MARKER = ".kconnect-complete"
PLUGIN_JARS = ("connect-file",)
# Moved out of `libs` into `tools`: a worker loads `org.apache.kafka.connect.tools` classes from its classpath only
# (they are not isolated by plugin.path), and no benchmark but the one that runs them should carry them.
TOOL_JARS = ("connect-test-plugins", "kafka-server-common")
LAYOUT = b"libs, plugins/<plugin>, tools"


@dataclass(frozen=True)
class ConnectJars:
    libs: Path
    plugins: Path
    extra: tuple[Path, ...] = ()  # further classpath directories

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(directory / "*") for directory in (self.libs, *self.extra))

    def with_extra(self, directory: Path) -> ConnectJars:
        """These jars with `directory`'s on the classpath too."""
        return replace(self, extra=(*self.extra, directory))

    @property
    def tools(self) -> Path:
        return self.libs.parent / "tools"

    def with_tools(self) -> ConnectJars:
        """These jars with Kafka's test connectors (VerifiableSourceConnector, ...) on the classpath too."""
        return self.with_extra(self.tools)


def fingerprint(pom: Path, version: str, layout: bytes) -> str:
    """What a complete cache directory's marker holds: the version, the descriptor and the layout."""
    return hashlib.sha256(version.encode() + b"\0" + pom.read_bytes() + b"\0" + layout).hexdigest()


def copy_dependencies(pom: Path, version: str, home: Path, output: Path, expected: str, what: str) -> None:
    """Empty `home`, then let `mvn` copy the runtime dependencies of `pom` (with `-Dkafka.version=version`) into
    `output`; raises unless a jar named `expected-*` arrived."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("`mvn` not found: install Apache Maven 3.6+ (Debian: apt-get install maven)")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    # mvn works on a copy so nothing (target/, resolver state) lands in the repository.
    pom_copy = home / "pom.xml"
    shutil.copyfile(pom, pom_copy)
    command = [
        mvn,
        "--batch-mode",
        "--quiet",
        "-f",
        str(pom_copy),
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={output}",
        f"-Dkafka.version={version}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not any(output.glob(f"{expected}-*.jar")):
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"mvn could not resolve {what}:\n{tail}")


def layout(version: str, cache: Path | None = None) -> ConnectJars:
    home = (cache or cache_root()) / f"connect-{version}"
    return ConnectJars(home / "libs", home / "plugins")


def fetch(version: str, cache: Path | None = None) -> ConnectJars:
    """The jars of Kafka Connect `version`, resolving them with `mvn` unless the cache is complete."""
    jars = layout(version, cache)
    marker = jars.libs.parent / MARKER
    if marker.exists() and marker.read_text().strip() == fingerprint(POM, version, LAYOUT):
        return jars
    home = jars.libs.parent
    log.info("resolving Kafka Connect %s from Maven Central into %s", version, home)
    copy_dependencies(POM, version, home, jars.libs, "connect-runtime", f"Kafka Connect {version}")
    for plugin in PLUGIN_JARS:
        directory = jars.plugins / plugin
        directory.mkdir(parents=True)
        for jar in jars.libs.glob(f"{plugin}-{version}.jar"):
            jar.rename(directory / jar.name)
    jars.tools.mkdir(parents=True)
    for artifact in TOOL_JARS:
        for jar in jars.libs.glob(f"{artifact}-{version}.jar"):
            jar.rename(jars.tools / jar.name)
    marker.write_text(fingerprint(POM, version, LAYOUT) + "\n")
    return jars


def fetch_or_reason(version: str) -> tuple[ConnectJars, str | None]:
    """`fetch(version)`, or, when that fails, where the jars would be and why they are not there (a benchmark
    then reports the Java rows as not measurable instead of failing the run)."""
    try:
        return fetch(version), None
    except Exception as error:
        log.exception("Kafka's Java jars are not available")
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return layout(version), first[:200]
