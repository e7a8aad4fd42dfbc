"""The files `kconnect new connector` writes, as `str.format` templates over name, module, connector and task
(literal braces doubled). Kept apart from the command so that each reads as the file it becomes."""

from __future__ import annotations

PYPROJECT = """[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
description = "A kconnect connector"
requires-python = ">=3.11"
dependencies = ["kconnect"]

[project.optional-dependencies]
test = ["pytest", "mypy"]

# How a kconnect worker finds the connector: by this entry point name, or by its class name.
[project.entry-points."kconnect.connectors"]
{connector} = "{module}.connector:{connector}"

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
"*" = ["py.typed"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]

[tool.mypy]
strict = true
mypy_path = "src"
files = ["src", "tests"]
"""

README = """# {name}

A kconnect connector, `{connector}` (docs/connectors.md in kconnect says how connectors work).

```sh
pip install -e '.[test]'
pytest && mypy
```

Installed beside kconnect, a worker lists it under `GET /connector-plugins`; create one with
`"connector.class": "{connector}"`.
"""


def _connector_class(kind: str) -> str:
    """The connector class both kinds write alike (one task config per connector), for `kind` Source or Sink."""
    return _CONNECTOR_CLASS.replace("{kind}", kind)


_CONNECTOR_CLASS = """class {connector}({kind}Connector):
    def version(self) -> str:
        return "0.1.0"

    def config(self) -> ConfigDef:
        return CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        Config(CONFIG, props)  # a ConfigError names a bad key
        self.props = dict(props)

    def task_class(self) -> type[{kind}Task]:
        return {task}

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        pass


"""

SOURCE = (
    '''"""{connector}: a source connector and its task (a counter to replace with reads from your system)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from connect.api import (
    INT64_SCHEMA,
    Config,
    ConfigDef,
    ConfigType,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
    non_empty_string,
)

CONFIG = (
    ConfigDef()
    .define(
        "topic",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The topic the records go to.",
    )
    .define(
        "batch.size",
        ConfigType.INT,
        default=10,
        importance=Importance.MEDIUM,
        documentation="Records per poll.",
    )
    .define(
        "poll.interval.ms",
        ConfigType.LONG,
        default=1000,
        importance=Importance.MEDIUM,
        documentation="The pause after each poll.",
    )
)


'''
    + _connector_class("Source")
    + '''class {task}(SourceTask):
    """Counts up from where the stored source offset says it stopped."""

    def version(self) -> str:
        return "0.1.0"

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG, props)
        self.topic = config.get_str("topic")
        self.batch_size = config.get_int("batch.size")
        self.pause_s = config.get_int("poll.interval.ms") / 1000
        self.partition = {{"source": "counter"}}
        stored = self.context.offset_reader.offset(self.partition)
        self.next = int(stored["next"]) if stored else 0

    def poll(self) -> list[SourceRecord] | None:
        records = []
        for _ in range(self.batch_size):
            offset = {{"next": self.next + 1}}
            records.append(SourceRecord(self.partition, offset, self.topic, value_schema=INT64_SCHEMA, value=self.next))
            self.next += 1
        time.sleep(self.pause_s)  # short, so that stop() is seen soon
        return records

    def stop(self) -> None:
        pass
'''
)

SOURCE_TESTS = '''"""{connector}'s tests: unit tests on connect.testing's fakes of the worker's contexts, and the
connector in a worker over Kafka in memory (connect.testing's harness, the connector_harness fixture)."""

from __future__ import annotations

from connect.api import ConfigError
from connect.testing import ConnectorHarness, FakeSourceTaskContext
from {module}.connector import {connector}, {task}


def test_the_connector_refuses_a_config_without_a_topic() -> None:
    errors = {{value.name: value.error_messages for value in {connector}().validate({{}})}}
    assert errors["topic"]
    try:
        {connector}().start({{}})
    except ConfigError as error:
        assert "topic" in str(error)
    else:
        raise AssertionError("started without a topic")


def test_the_task_resumes_after_its_stored_offset() -> None:
    task = {task}()
    task.initialize(FakeSourceTaskContext(offsets=[({{"source": "counter"}}, {{"next": 5}})]))
    task.start({{"topic": "numbers", "batch.size": "3", "poll.interval.ms": "0"}})

    records = task.poll() or []

    assert [record.value for record in records] == [5, 6, 7]
    assert records[-1].source_offset == {{"next": 8}}


def test_the_connector_writes_to_its_topic_in_a_worker(connector_harness: ConnectorHarness) -> None:
    config = {{"connector.class": {connector}, "topic": "numbers", "poll.interval.ms": "10"}}
    connector_harness.start("numbers", config)

    assert connector_harness.read_values("numbers", 5)[:5] == [0, 1, 2, 3, 4]
'''

SINK = (
    '''"""{connector}: a sink connector and its task (a file of lines to replace with writes to your system)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO

from connect.api import (
    Config,
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
    non_empty_string,
)

CONFIG = ConfigDef().define(
    "file",
    ConfigType.STRING,
    validator=non_empty_string,
    importance=Importance.HIGH,
    documentation="The file each record's value is appended to, a line each.",
)


'''
    + _connector_class("Sink")
    + '''class {task}(SinkTask):
    """Appends each value as a line; durable at each flush, before the worker commits the offsets."""

    def version(self) -> str:
        return "0.1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.out: IO[str] = open(Config(CONFIG, props).get_str("file"), "a", encoding="utf-8")

    def put(self, records: Sequence[SinkRecord]) -> None:
        for record in records:
            self.out.write(f"{{record.value}}\\n")

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.out.flush()

    def stop(self) -> None:
        self.out.close()
'''
)

SINK_TESTS = '''"""{connector}'s tests: unit tests on connect.testing's fakes of the worker's contexts, and the
connector in a worker over Kafka in memory (connect.testing's harness, the connector_harness fixture)."""

from __future__ import annotations

from pathlib import Path

from connect.api import SinkRecord, TopicPartition
from connect.testing import ConnectorHarness, FakeSinkTaskContext, wait_for
from {module}.connector import {connector}, {task}


def test_the_connector_refuses_a_config_without_a_file() -> None:
    errors = {{value.name: value.error_messages for value in {connector}().validate({{}})}}
    assert errors["file"]


def test_the_task_writes_a_line_per_value_by_the_commit(tmp_path: Path) -> None:
    out, partition = tmp_path / "out.txt", TopicPartition("numbers", 0)
    task = {task}()
    task.initialize(FakeSinkTaskContext(assignment=[partition]))
    task.start({{"file": str(out)}})

    task.put([SinkRecord("numbers", 0, None, None, None, value, kafka_offset=value) for value in (1, 2)])
    task.pre_commit({{partition: 2}})

    assert out.read_text() == "1\\n2\\n"
    task.stop()


def test_the_connector_writes_what_its_topic_holds_in_a_worker(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    connector_harness.start("lines", {{"connector.class": {connector}, "topics": "numbers", "file": str(out)}})
    for value in (1, 2):
        connector_harness.send("numbers", value)  # converted by the worker's converter, as a source's would be

    wait_for(lambda: out.exists() and out.read_text() == "1\\n2\\n", 10, "a line per record in the file")
'''

_COMMON = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "src/{module}/__init__.py": "",
    "src/{module}/py.typed": "",
}
TEMPLATES: dict[str, dict[str, str]] = {
    "source": {**_COMMON, "src/{module}/connector.py": SOURCE, "tests/test_connector.py": SOURCE_TESTS},
    "sink": {**_COMMON, "src/{module}/connector.py": SINK, "tests/test_connector.py": SINK_TESTS},
}
