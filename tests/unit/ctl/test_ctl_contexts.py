"""Named contexts: the 0600 file, which cluster a command talks to, basic auth and https with a CA file."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest

from tests.unit.ctl.fake_cluster import FakeCluster, fake_cluster
from tests.unit.ctl.support import ctl

SECRET = "s3cret-Pa55"


def test_set_context_keeps_the_password_in_a_0600_file_and_never_prints_it(
    ctl_environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = ctl(
        capsys, "config", "set-context", "prod", "--url", "https://connect:8443", "--user", "ops", "--password", SECRET
    )
    ctl(capsys, "config", "set-context", "dev", "--url", "http://localhost:8083")

    assert made.code == 0 and SECRET not in made.out + made.err
    assert stat.S_IMODE(ctl_environment.stat().st_mode) == 0o600
    assert json.loads(ctl_environment.read_text())["contexts"]["prod"]["password"] == SECRET
    listed = ctl(capsys, "config", "get-contexts")
    assert SECRET not in listed.out
    assert listed.out.splitlines() == [
        "CURRENT  NAME  URL                    USER  PASSWORD  CA FILE",
        "         dev   http://localhost:8083",
        "*        prod  https://connect:8443   ops   ***",
    ]
    assert ctl(capsys, "config", "current-context").out.strip() == "prod"  # the first context made is current


def test_use_and_delete_context(capsys: pytest.CaptureFixture[str]) -> None:
    ctl(capsys, "config", "set-context", "a", "--url", "http://a:8083")
    ctl(capsys, "config", "set-context", "b", "--url", "http://b:8083")

    assert ctl(capsys, "config", "use-context", "b").code == 0
    assert ctl(capsys, "config", "current-context").out.strip() == "b"
    assert ctl(capsys, "config", "use-context", "c").code == 2
    assert ctl(capsys, "config", "delete-context", "b").code == 0
    no_current = ctl(capsys, "config", "current-context")
    assert no_current.code == 1 and "No current context" in no_current.err


def test_the_current_context_authenticates_and_the_command_line_or_environment_win_over_it(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster.answer("GET", "/admin/loggers", 200, {})
    with fake_cluster() as other:
        other.answer("GET", "/admin/loggers", 200, {})
        ctl(capsys, "config", "set-context", "secured", "--url", cluster.url, "--user", "ops", "--password", SECRET)

        assert ctl(capsys, "get", "loggers").code == 0
        expected = "Basic " + base64.b64encode(f"ops:{SECRET}".encode()).decode()
        assert cluster.requests[-1].headers["Authorization"] == expected

        monkeypatch.setenv("KCONNECT_URL", other.url)
        assert ctl(capsys, "get", "loggers").code == 0
        assert len(other.requests) == 1 and "Authorization" not in other.requests[0].headers
        assert ctl(capsys, "get", "loggers", "--url", cluster.url).code == 0
        assert len(cluster.requests) == 2
        # A context named on the command line wins over the environment.
        assert ctl(capsys, "get", "loggers", "--context", "secured").code == 0
        assert len(cluster.requests) == 3 and "Authorization" in cluster.requests[-1].headers
        assert ctl(capsys, "--context", "secured", "get", "loggers").code == 0  # before the verb too
        assert len(cluster.requests) == 4 and "Authorization" in cluster.requests[-1].headers


def test_https_with_the_context_ca_file_and_a_tls_error_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_cluster(tls_directory=tmp_path) as secure:
        secure.answer("GET", "/connectors", 200, {})
        ctl(capsys, "config", "set-context", "tls", "--url", secure.url, "--ca-file", str(tmp_path / "cert.pem"))

        trusted = ctl(capsys, "get", "connectors")
        untrusted = ctl(capsys, "get", "connectors", "--url", secure.url)

    assert trusted.code == 0, trusted.err
    assert untrusted.code == 3
    assert secure.url in untrusted.err and "TLS error" in untrusted.err
