"""`kconnect ctl` contexts against a worker secured as Kafka Connect deployments are (https listener, the
basic-auth REST extension): the context's user, password and CA file get in; a wrong password is the
cluster's 401 (exit 1), an untrusted certificate a TLS error (exit 3); the password is never printed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.distributed_workers import Cluster
from tests.support.secured_workers import PASSWORD, USER

pytestmark = pytest.mark.e2e


def ctl(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "KCONNECT_CTL_CONFIG": str(config)}
    environ.pop("KCONNECT_URL", None)
    command = [sys.executable, "-m", "workers.cli", "ctl", *args]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=60, check=False)


def test_contexts_with_basic_auth_and_a_ca_file(secured_cluster: Callable[[int], Cluster], tmp_path: Path) -> None:
    cluster = secured_cluster(1)
    url, ca_file = cluster.workers[0].url, str(cluster.directory / "ca.pem")
    config = tmp_path / "ctl.json"
    made = ctl(
        config,
        "config",
        "set-context",
        "secured",
        "--url",
        url,
        "--user",
        USER,
        "--password",
        PASSWORD,
        "--ca-file",
        ca_file,
    )
    ctl(
        config,
        "config",
        "set-context",
        "wrong",
        "--url",
        url,
        "--user",
        USER,
        "--password",
        "nope",
        "--ca-file",
        ca_file,
    )
    ctl(config, "config", "set-context", "untrusted", "--url", url, "--user", USER, "--password", PASSWORD)

    allowed = ctl(config, "get", "connectors")
    refused = ctl(config, "get", "connectors", "--context", "wrong")
    untrusted = ctl(config, "get", "connectors", "--context", "untrusted")
    listed = ctl(config, "config", "get-contexts")

    assert made.returncode == 0 and allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.split() == ["NAME", "TYPE", "STATE", "TASKS"]
    assert refused.returncode == 1 and "HTTP 401" in refused.stderr
    assert untrusted.returncode == 3 and "TLS error" in untrusted.stderr and url in untrusted.stderr
    for result in (made, allowed, refused, untrusted, listed):
        assert PASSWORD not in result.stdout + result.stderr
