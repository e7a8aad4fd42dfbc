"""The plug-in API is typed for a plug-in's own project: kconnect's wheel ships `py.typed`, so `mypy --strict`
of a connector that imports `connect.api` checks it against kconnect's types (PEP 561) instead of reporting
missing stubs and classes that subclass `Any`. Built and installed as a plug-in author gets it: the wheel,
in a fresh virtual environment of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_projects import mypy_strict

pytestmark = pytest.mark.integration


PLUGIN = """
from __future__ import annotations

from collections.abc import Mapping

from connect.api import STRING_SCHEMA, ConfigDef, ConfigType, Importance, SourceConnector, SourceRecord, SourceTask


class TickerTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.count = 0

    def poll(self) -> list[SourceRecord] | None:
        self.count += 1
        return [SourceRecord({"ticker": "t"}, {"n": self.count}, self.topic, value_schema=STRING_SCHEMA, value="tick")]

    def stop(self) -> None:
        pass


class TickerConnector(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return TickerTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="where to")
"""

MISTAKE = """
from connect.api import SourceTask


def records(task: SourceTask) -> int:
    return task.poll()
"""


def test_mypy_strict_of_a_plugin_against_the_installed_wheel_is_clean(plugin_environment: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "ticker.py"
    plugin.write_text(PLUGIN)

    checked = mypy_strict(plugin_environment, plugin)

    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_mypy_strict_finds_a_plugins_mistake_through_the_apis_types(plugin_environment: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "mistake.py"
    plugin.write_text(MISTAKE)

    checked = mypy_strict(plugin_environment, plugin)

    assert checked.returncode == 1
    assert 'Incompatible return value type (got "list[SourceRecord] | None", expected "int")' in checked.stdout
    assert "py.typed" not in checked.stdout and "import-untyped" not in checked.stdout
