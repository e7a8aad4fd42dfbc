"""Resolves Kafka Connect's Java runtime from Maven Central into a per-version cache outside the repo.

`pom.xml` beside this module names the classpath. The cache holds `connect-<version>/libs` (the
classpath), `connect-<version>/plugins/connect-file` (the FileStream connectors, loaded from
`plugin.path` as in Kafka's distribution) and `connect-<version>/tools` (Kafka's test connectors with the
kafka-server-common jar only they need; on the classpath of the workers that ask for them),
`connect-<version>/rest-extensions` (Kafka's basic-auth REST extension, likewise), completed by a marker
recording the descriptor's digest and the layout.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from workers.kafka_local.jars import cache_root

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("pom.xml")
MARKER = ".kconnect-complete"
PLUGIN_JARS = ("connect-file",)
# Moved out of `libs` into `tools`: a worker loads `org.apache.kafka.connect.tools` classes from its classpath only
# (they are not isolated by plugin.path), and no benchmark but the one that runs them should carry them.
TOOL_JARS = ("connect-test-plugins", "kafka-server-common")
# Moved out of `libs` likewise: only the workers of the security benchmark load a REST extension.
REST_EXTENSION_JARS = ("connect-basic-auth-extension",)
LAYOUT = b"libs, plugins/<plugin>, tools, rest-extensions"


@dataclass(frozen=True)
class ConnectJars:
    libs: Path
    plugins: Path
    extra: tuple[Path, ...] = ()  # further classpath directories

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(directory / "*") for directory in (self.libs, *self.extra))

    @property
    def tools(self) -> Path:
        return self.libs.parent / "tools"

    def with_tools(self) -> ConnectJars:
        """These jars with Kafka's test connectors (VerifiableSourceConnector, ...) on the classpath too."""
        return replace(self, extra=(*self.extra, self.tools))

    @property
    def rest_extensions(self) -> Path:
        return self.libs.parent / "rest-extensions"

    def with_rest_extensions(self) -> ConnectJars:
        """These jars with Kafka's basic-auth REST extension on the classpath too."""
        return replace(self, extra=(*self.extra, self.rest_extensions))


def _fingerprint(version: str) -> str:
    return hashlib.sha256(version.encode() + b"\0" + POM.read_bytes() + b"\0" + LAYOUT).hexdigest()


def layout(version: str, cache: Path | None = None) -> ConnectJars:
    home = (cache or cache_root()) / f"connect-{version}"
    return ConnectJars(home / "libs", home / "plugins")


def fetch(version: str, cache: Path | None = None) -> ConnectJars:
    """The jars of Kafka Connect `version`, resolving them with `mvn` unless the cache is complete."""
    jars = layout(version, cache)
    marker = jars.libs.parent / MARKER
    if marker.exists() and marker.read_text().strip() == _fingerprint(version):
        return jars
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("`mvn` not found: install Apache Maven 3.6+ (Debian: apt-get install maven)")
    home = jars.libs.parent
    log.info("resolving Kafka Connect %s from Maven Central into %s", version, home)
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    # mvn works on a copy so nothing (target/, resolver state) lands in the repository.
    pom_copy = home / "pom.xml"
    shutil.copyfile(POM, pom_copy)
    command = [
        mvn,
        "--batch-mode",
        "--quiet",
        "-f",
        str(pom_copy),
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={jars.libs}",
        f"-Dkafka.version={version}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not any(jars.libs.glob("connect-runtime-*.jar")):
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"mvn could not resolve Kafka Connect {version}:\n{tail}")
    for plugin in PLUGIN_JARS:
        directory = jars.plugins / plugin
        directory.mkdir(parents=True)
        for jar in jars.libs.glob(f"{plugin}-{version}.jar"):
            jar.rename(directory / jar.name)
    for directory, artifacts in ((jars.tools, TOOL_JARS), (jars.rest_extensions, REST_EXTENSION_JARS)):
        directory.mkdir(parents=True)
        for artifact in artifacts:
            for jar in jars.libs.glob(f"{artifact}-{version}.jar"):
                jar.rename(directory / jar.name)
    marker.write_text(_fingerprint(version) + "\n")
    return jars
