"""Resolves Spark's Kafka source (spark-sql-kafka-0-10) from Maven Central into a cache outside the repo.

`pom.xml` beside this module names the connector; `mvn dependency:copy-dependencies` copies it and its
runtime closure into `<cache>/spark-sql-kafka-<pyspark version>/libs`, with a local Maven repository
of its own next to it, and a marker records what was resolved. Jars pyspark already ships (Scala,
Hadoop, compression codecs, Spark's own) are left out, so the classpath holds one version of each.

The connector should match pyspark's Spark version. When Maven Central has no such release (or an
incomplete one: a token-provider jar missing) the newest older release of the same major version that
resolves is taken, and the token provider of the newest release that has one; the marker and the
benchmark's settings say which versions ran. Spark's parent descriptor names a Google mirror of Central
first; `settings.xml` maps it onto Central.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from local_kafka.jars import cache_root

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("pom.xml")
SETTINGS = Path(__file__).with_name("settings.xml")
MARKER = ".kconnect-complete.json"
GROUP = "org.apache.spark"
CONNECTOR = "spark-sql-kafka-0-10_2.13"
TOKEN_PROVIDER = "spark-token-provider-kafka-0-10_2.13"
MAX_CANDIDATES = 4
_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_JAR = re.compile(r"(.+?)-\d[\w.\-]*\.jar")


@dataclass(frozen=True)
class SparkKafkaJars:
    jars: tuple[Path, ...]
    connector_version: str
    token_provider_version: str

    @property
    def spark_jars(self) -> str:
        """The value of `spark.jars`."""
        return ",".join(str(jar) for jar in self.jars)


def pyspark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def _release(version: str) -> tuple[int, int, int] | None:
    match = _RELEASE.fullmatch(version)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _fingerprint(version: str) -> str:
    return hashlib.sha256(version.encode() + b"\0" + POM.read_bytes() + SETTINGS.read_bytes()).hexdigest()


def _artifact(jar: Path) -> str:
    match = _JAR.fullmatch(jar.name)
    return match.group(1) if match else jar.stem


class Resolver:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.repository = home / "m2"
        mvn = shutil.which("mvn")
        if mvn is None:
            raise RuntimeError("`mvn` not found: install Apache Maven 3.6+ (Debian: apt-get install maven)")
        self._mvn = mvn

    def _run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        command = [
            self._mvn,
            "--batch-mode",
            "--quiet",
            "-s",
            str(SETTINGS),
            f"-Dmaven.repo.local={self.repository}",
            *arguments,
        ]
        return subprocess.run(command, capture_output=True, text=True, check=False, cwd=self.home)

    def releases(self, artifact: str, newest: str) -> list[str]:
        """Releases of `artifact` on Central with `newest`'s major version, below it, newest first."""
        self._run("dependency:get", f"-Dartifact={GROUP}:{artifact}:RELEASE", "-Dtransitive=false")
        found: set[str] = set()
        for metadata in (self.repository / GROUP.replace(".", "/") / artifact).glob("maven-metadata-*.xml"):
            found.update(re.findall(r"<version>([^<]+)</version>", metadata.read_text()))
        ceiling = _release(newest)
        versions = [(r, v) for v in found if (r := _release(v)) is not None and ceiling is not None]
        eligible = [(r, v) for r, v in versions if ceiling is not None and r[0] == ceiling[0] and r < ceiling]
        return [v for _, v in sorted(eligible, reverse=True)]

    def exists(self, artifact: str, version: str) -> bool:
        """Whether Central has the jar of `artifact` `version` (its dependencies are not looked at)."""
        result = self._run("dependency:get", f"-Dartifact={GROUP}:{artifact}:{version}", "-Dtransitive=false")
        return result.returncode == 0

    def copy(self, connector: str, token_provider: str, libs: Path) -> bool:
        shutil.rmtree(libs, ignore_errors=True)
        result = self._run(
            "-f",
            str(self.home / "pom.xml"),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={libs}",
            f"-Dspark.version={connector}",
            f"-Dtoken.provider.version={token_provider}",
        )
        if result.returncode != 0:
            log.info("spark-sql-kafka %s with token provider %s does not resolve", connector, token_provider)
        return result.returncode == 0 and any(libs.glob(f"{CONNECTOR}-*.jar"))


def _layout(version: str, cache: Path | None) -> Path:
    return (cache or cache_root()) / f"spark-sql-kafka-{version}"


def _cached(home: Path, version: str) -> SparkKafkaJars | None:
    marker = home / MARKER
    if not marker.exists():
        return None
    recorded = json.loads(marker.read_text())
    if recorded.get("fingerprint") != _fingerprint(version):
        return None
    jars = tuple(Path(p) for p in recorded["jars"])
    if not all(jar.exists() for jar in jars):
        return None
    return SparkKafkaJars(jars, recorded["connector"], recorded["token_provider"])


def fetch(version: str | None = None, cache: Path | None = None) -> SparkKafkaJars:
    """The Kafka source's jars for pyspark's Spark (or `version`), resolving them unless cached."""
    version = version or pyspark_version()
    home = _layout(version, cache)
    cached = _cached(home, version)
    if cached is not None:
        return cached
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(POM, home / "pom.xml")  # mvn works on a copy: nothing lands in the repository
    resolver = Resolver(home)
    libs = home / "libs"
    log.info("resolving %s:%s:%s from Maven Central into %s", GROUP, CONNECTOR, version, home)
    if resolver.copy(version, version, libs):
        return _finish(home, version, libs, version, version)
    connectors = [version, *resolver.releases(CONNECTOR, version)[:MAX_CANDIDATES]]
    token_providers = [version, *resolver.releases(TOKEN_PROVIDER, version)]
    for connector in filter(lambda v: resolver.exists(CONNECTOR, v), connectors):
        newest = _release(connector)
        for token_provider in token_providers:
            older = (_release(token_provider) or (0, 0, 0)) <= (newest or (0, 0, 0))
            if older and resolver.exists(TOKEN_PROVIDER, token_provider):
                if resolver.copy(connector, token_provider, libs):
                    return _finish(home, version, libs, connector, token_provider)
                break
    raise RuntimeError(
        f"mvn resolved no {CONNECTOR} for Spark {version} (tried {', '.join(connectors)}) from Maven Central"
    )


def _finish(home: Path, version: str, libs: Path, connector: str, token_provider: str) -> SparkKafkaJars:
    provided = {_artifact(jar) for jar in pyspark_jars().glob("*.jar")}
    jars = tuple(sorted(jar for jar in libs.glob("*.jar") if _artifact(jar) not in provided))
    if connector != version or token_provider != connector:
        log.warning(
            "Maven Central has no complete %s %s: using %s %s with %s %s",
            CONNECTOR, version, CONNECTOR, connector, TOKEN_PROVIDER, token_provider,
        )  # fmt: skip
    marker = {
        "fingerprint": _fingerprint(version),
        "connector": connector,
        "token_provider": token_provider,
        "jars": [str(jar) for jar in jars],
    }
    (home / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    return SparkKafkaJars(jars, connector, token_provider)
