"""The two MirrorMaker 2s in dedicated mode, started from the same mm2.properties: `kconnect mirror` and Java's
`org.apache.kafka.connect.mirror.MirrorMaker` (what connect-mirror-maker.sh runs, with that script's JVM flags)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.java_connect.jars import ConnectJars
from bench.systems.java import HEAP_OPTS, JVM_OPTS, jvm_command
from bench.systems.kconnect import kconnect_command

JAVA_MAIN_CLASS = "org.apache.kafka.connect.mirror.MirrorMaker"


class MirrorSystem(Protocol):
    key: str
    label: str

    def unavailable_reason(self) -> str | None: ...

    def command(self, mm2_properties: Path, workdir: Path) -> list[str]: ...

    def settings(self) -> Mapping[str, str]: ...


class KconnectMirror:
    key = KCONNECT
    label = "kconnect mirror"

    def unavailable_reason(self) -> str | None:
        return None

    def command(self, mm2_properties: Path, workdir: Path) -> list[str]:
        return [*kconnect_command(), "mirror", str(mm2_properties)]

    def settings(self) -> Mapping[str, str]:
        return {"command": "kconnect mirror mm2.properties"}


class JavaMirror:
    key = JAVA_CONNECT
    label = "Java MirrorMaker 2"

    def __init__(self, jars: ConnectJars, version: str, kafka_opts: Sequence[str] = ()) -> None:
        """`kafka_opts`: JVM options, as connect-mirror-maker.sh takes them from KAFKA_OPTS."""
        self.jars = jars
        self.version = version
        self.kafka_opts = tuple(kafka_opts)
        self.java = shutil.which("java")

    def unavailable_reason(self) -> str | None:
        return None if self.java else "`java` not found on PATH"

    def command(self, mm2_properties: Path, workdir: Path) -> list[str]:
        return jvm_command(
            self.java, self.jars, workdir / "mirror-maker.log", JAVA_MAIN_CLASS, mm2_properties, self.kafka_opts
        )

    def settings(self) -> Mapping[str, str]:
        return {
            "main_class": JAVA_MAIN_CLASS,
            "kafka_version": self.version,
            "jvm": " ".join((*HEAP_OPTS, *JVM_OPTS)),
        }
