from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.ctl.fake_cluster import FakeCluster, fake_cluster


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with fake_cluster() as running:
        yield running


@pytest.fixture(autouse=True)
def ctl_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test with its own empty context file and no cluster from the environment."""
    path = tmp_path / "ctl.json"
    monkeypatch.setenv("KCONNECT_CTL_CONFIG", str(path))
    monkeypatch.delenv("KCONNECT_URL", raising=False)
    return path
