"""The fresh virtual environment with kconnect's wheel that plug-in projects are checked against, built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_projects import author_environment


@pytest.fixture(scope="session")
def plugin_environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The environment's bin folder."""
    return author_environment(tmp_path_factory.mktemp("plugin-env"))
