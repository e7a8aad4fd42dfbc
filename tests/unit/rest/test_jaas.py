"""JAAS files as Kafka's start scripts pass them, and the PropertyFileLoginModule's credentials files."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from rest.extensions.basic_auth.credentials import CredentialsFile, FlaggedModule, jaas_login
from rest.extensions.basic_auth.jaas import LoginModuleEntry, jaas_file_from_environment, parse_jaas

MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def test_kafkas_documented_jaas_file() -> None:
    text = f"""
    // the REST API's users
    KafkaConnect {{
      {MODULE} required
      file="/etc/kafka/connect.password";
    }};
    /* another application's section */
    KafkaServer {{ org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin" password="a \\"quoted\\" secret;{{}}" user_admin=admin; }};
    """
    sections = parse_jaas(text)
    assert sections["KafkaConnect"] == [LoginModuleEntry(MODULE, "required", {"file": "/etc/kafka/connect.password"})]
    assert sections["KafkaServer"][0].options["password"] == 'a "quoted" secret;{}'
    assert sections["KafkaServer"][0].options["user_admin"] == "admin"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("KafkaConnect { x.Module required file=a; ", "unexpected end of file"),
        ("KafkaConnect { x.Module always file=a; };", "control flag 'always'"),
        ("KafkaConnect { x.Module required file; };", "expected '='"),
        ("KafkaConnect x.Module required; };", "expected '{'"),
    ],
)
def test_malformed_jaas_text_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_jaas(text)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"KAFKA_OPTS": "-Xmx1g -Djava.security.auth.login.config=/etc/kafka/jaas.conf -Dx=y"}, "/etc/kafka/jaas.conf"),
        ({"KAFKA_OPTS": "-Djava.security.auth.login.config==/etc/only.conf"}, "/etc/only.conf"),
        ({"KAFKA_OPTS": "'-Djava.security.auth.login.config=/my dir/jaas.conf'"}, "/my dir/jaas.conf"),
        ({"KAFKA_OPTS": "-Djava.security.auth.login.config=/a -Djava.security.auth.login.config=/b"}, "/b"),
        ({"KCONNECT_JAAS_CONFIG": "/k.conf", "KAFKA_OPTS": "-Djava.security.auth.login.config=/a"}, "/k.conf"),
        ({"KAFKA_OPTS": "-Xmx1g"}, None),
        ({}, None),
    ],
)
def test_the_jaas_file_is_found_as_the_jvm_finds_it(environ: dict[str, str], expected: str | None) -> None:
    found = jaas_file_from_environment(environ)
    assert (str(found) if found else None) == expected


def _credentials(tmp_path: Path, name: str, text: str) -> CredentialsFile:
    path = tmp_path / name
    path.write_text(text)
    return CredentialsFile.read(path, tmp_path / "jaas.conf")


def test_credentials_files_in_kafkas_format(tmp_path: Path) -> None:
    file = _credentials(tmp_path, "users", "# users\nalice: alice-secret\nbob=pass:with:colons\ncarol  spaced\n")
    assert file.check("alice", "alice-secret")
    assert file.check("bob", "pass:with:colons")
    assert file.check("carol", "spaced")
    assert not file.check("alice", "alice-secre")
    assert not file.check("alice", "")
    assert not file.check("mallory", "alice-secret")
    assert "alice-secret" not in repr(file)


def test_an_empty_credentials_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'.*/users' named by the JAAS file '.*/jaas.conf' has no users"):
        _credentials(tmp_path, "users", "# nobody yet\n")


def test_jaas_control_flags_decide_as_java_does(tmp_path: Path) -> None:
    a = _credentials(tmp_path, "a", "ann: a\nboth: x\n")
    b = _credentials(tmp_path, "b", "ben: b\nboth: x\n")
    assert jaas_login([FlaggedModule("required", a), FlaggedModule("required", b)], "both", "x")
    assert not jaas_login([FlaggedModule("required", a), FlaggedModule("required", b)], "ann", "a")
    assert jaas_login([FlaggedModule("sufficient", a), FlaggedModule("sufficient", b)], "ben", "b")
    assert not jaas_login([FlaggedModule("sufficient", a), FlaggedModule("optional", b)], "eve", "e")
    assert not jaas_login([FlaggedModule("requisite", a), FlaggedModule("sufficient", b)], "ben", "b")
    assert jaas_login([FlaggedModule("optional", a), FlaggedModule("required", b)], "ben", "b")
