"""Resolves Kafka's basic-auth REST extension from Maven Central into a cache directory of its own.

`basic-auth-pom.xml` beside this module names it. The directory, `connect-<version>-basic-auth/libs`, holds
the extension's jar and those of its dependencies that Java Connect's classpath (`jars.py`) lacks, so it can
be added to that classpath without a second copy of anything; Kafka's distribution has the same jars in
its `libs/`. Kept apart from `connect-<version>` so that Java Connect's own cache, which every other
benchmark uses, stays as it is.
"""

from __future__ import annotations

import logging
from pathlib import Path

from bench.java_connect.jars import MARKER, ConnectJars, copy_dependencies, fingerprint
from local_kafka.jars import cache_root

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("basic-auth-pom.xml")
ARTIFACT = "connect-basic-auth-extension"
LAYOUT = b"libs, less what Java Connect's libs hold"


def directory(version: str, cache: Path | None = None) -> Path:
    return (cache or cache_root()) / f"connect-{version}-basic-auth" / "libs"


def drop_duplicates(extension: Path, classpath: Path) -> list[str]:
    """Remove from `extension` every jar `classpath` already holds (same file name, so same version);
    returns their names."""
    present = {jar.name for jar in classpath.glob("*.jar")}
    dropped = sorted(jar.name for jar in extension.glob("*.jar") if jar.name in present)
    for name in dropped:
        (extension / name).unlink()
    return dropped


def fetch(jars: ConnectJars, version: str, cache: Path | None = None) -> Path:
    """The directory of the extension's jars for Java Connect `version` (whose jars are `jars`), resolving
    them with `mvn` unless the cache is complete."""
    libs = directory(version, cache)
    home = libs.parent
    marker = home / MARKER
    # Which jars were dropped depends on Java Connect's libs: a change there makes this directory stale too.
    connect_jars = b"\0".join(sorted(jar.name.encode() for jar in jars.libs.glob("*.jar")))
    expected = fingerprint(POM, version, LAYOUT + b"\0" + connect_jars)
    if marker.exists() and marker.read_text().strip() == expected:
        return libs
    log.info("resolving Kafka's basic-auth REST extension %s from Maven Central into %s", version, home)
    copy_dependencies(POM, version, home, libs, ARTIFACT, f"{ARTIFACT} {version}")
    drop_duplicates(libs, jars.libs)
    marker.write_text(expected + "\n")
    return libs
