"""JAAS login configuration files, the format Java's `ConfigFile` reads and Kafka's start scripts pass.

    KafkaConnect {
      org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
        file="/etc/kafka/connect.password";
    };

Sections (`Name { entries };`), each entry a login module class, a control flag (`required`, `requisite`,
`sufficient`, `optional`) and `key=value` options ending with `;`. Values are quoted or bare words;
`//` and `/* */` comments are skipped. The file is found as Kafka's JVM finds it: the
`-Djava.security.auth.login.config=...` system property inside `KAFKA_OPTS`, or `KCONNECT_JAAS_CONFIG`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from connect.api.errors import ConfigError

JAAS_PROPERTY = "java.security.auth.login.config"
KCONNECT_JAAS_ENV = "KCONNECT_JAAS_CONFIG"
KAFKA_OPTS_ENV = "KAFKA_OPTS"
FLAGS = ("required", "requisite", "sufficient", "optional")

_TOKEN = re.compile(
    r'\s+|//[^\n]*|/\*.*?\*/|(?P<string>"(?:[^"\\]|\\.)*")|(?P<punct>[{};=])|(?P<word>[^\s{};="]+)', re.DOTALL
)


@dataclass(frozen=True)
class LoginModuleEntry:
    class_name: str
    flag: str
    options: Mapping[str, str] = field(default_factory=dict)


def jaas_file_from_environment(environ: Mapping[str, str]) -> Path | None:
    """The JAAS file named by `KCONNECT_JAAS_CONFIG`, else by `-Djava.security.auth.login.config` in
    `KAFKA_OPTS` (a leading `=`, Java's "replace the default" form, is allowed); None if neither is set."""
    direct = environ.get(KCONNECT_JAAS_ENV, "").strip()
    if direct:
        return Path(direct)
    prefix = f"-D{JAAS_PROPERTY}="
    try:
        words = shlex.split(environ.get(KAFKA_OPTS_ENV, ""))
    except ValueError as exc:
        raise ConfigError(f"Cannot read {KAFKA_OPTS_ENV}: {exc}") from exc
    for word in reversed(words):  # the JVM keeps the last definition of a property
        if word.startswith(prefix):
            return Path(word[len(prefix) :].removeprefix("="))
    return None


def read_jaas_file(path: Path) -> dict[str, list[LoginModuleEntry]]:
    """The sections of a JAAS file; ConfigError naming the file if it is missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read the JAAS file '{path}': {exc.strerror}") from exc
    try:
        return parse_jaas(text)
    except ValueError as exc:
        raise ConfigError(f"Malformed JAAS file '{path}': {exc}") from exc


def parse_jaas(text: str) -> dict[str, list[LoginModuleEntry]]:
    """The sections of JAAS text; ValueError saying what is wrong."""
    tokens = _tokens(text)
    sections: dict[str, list[LoginModuleEntry]] = {}
    position = 0

    def take(expected: str | None = None) -> str:
        nonlocal position
        if position >= len(tokens):
            raise ValueError(f"unexpected end of file{f', expected {expected!r}' if expected else ''}")
        token = tokens[position]
        position += 1
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected!r} but found {token!r}")
        return token

    while position < len(tokens):
        name = take()
        take("{")
        entries: list[LoginModuleEntry] = []
        while tokens[position : position + 1] != ["}"]:
            class_name = take()
            flag = take().lower()
            if flag not in FLAGS:
                raise ValueError(f"login module {class_name} has the control flag {flag!r}, not one of {FLAGS}")
            options: dict[str, str] = {}
            while (token := take()) != ";":
                take("=")
                options[token] = _unquote(take())
            entries.append(LoginModuleEntry(class_name, flag, options))
        take("}")
        take(";")
        sections[name] = entries
    return sections


def _tokens(text: str) -> list[str]:
    tokens = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(f"unreadable text at character {position}: {text[position : position + 20]!r}")
        position = match.end()
        token = match.group("string") or match.group("punct") or match.group("word")
        if token:
            tokens.append(token)
    return tokens


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token
