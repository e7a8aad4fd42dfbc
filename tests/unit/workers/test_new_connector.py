"""`kconnect new connector NAME`: what it writes, the names it derives, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.cli import main
from workers.new_connector import class_names, module_name


def test_it_writes_a_package_with_its_entry_point_tests_and_strict_mypy(tmp_path: Path) -> None:
    assert main(["new", "connector", "weather-feed", "--dir", str(tmp_path)]) == 0

    project = tmp_path / "weather-feed"
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file()) == [
        "README.md",
        "pyproject.toml",
        "src/weather_feed/__init__.py",
        "src/weather_feed/connector.py",
        "src/weather_feed/py.typed",
        "tests/test_connector.py",
    ]
    pyproject = (project / "pyproject.toml").read_text()
    assert 'WeatherFeedSourceConnector = "weather_feed.connector:WeatherFeedSourceConnector"' in pyproject
    assert "strict = true" in pyproject
    assert "class WeatherFeedSourceTask(SourceTask)" in (project / "src/weather_feed/connector.py").read_text()


@pytest.mark.parametrize(
    ("name", "kind", "connector", "task", "module"),
    [
        ("weather-feed", "source", "WeatherFeedSourceConnector", "WeatherFeedSourceTask", "weather_feed"),
        ("s3-sink", "sink", "S3SinkConnector", "S3SinkTask", "s3_sink"),  # no SinkSink
        ("import", "sink", "ImportSinkConnector", "ImportSinkTask", "import_connector"),  # a Python keyword
    ],
)
def test_the_names_follow_the_package_name(name: str, kind: str, connector: str, task: str, module: str) -> None:
    assert class_names(name, kind) == (connector, task)
    assert module_name(name) == module


def test_it_refuses_a_bad_name_and_an_existing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "connector", "Weather_Feed", "--dir", str(tmp_path)]) == 2
    assert "not a package name" in capsys.readouterr().err
    (tmp_path / "taken").mkdir()
    assert main(["new", "connector", "taken", "--dir", str(tmp_path)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert list((tmp_path / "taken").iterdir()) == []
