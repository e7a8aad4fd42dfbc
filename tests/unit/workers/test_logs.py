"""The worker's log formats: JSON lines with Kafka's connector context, and the text layout kept as it was."""

from __future__ import annotations

import contextvars
import io
import json
import logging
import re
from collections.abc import Iterator

import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import LOG_FORMAT, WorkerConfig
from connect.runtime.logs.context import CURRENT_CONTEXT
from connect.runtime.task_process.relays import log_record_fields
from workers.common import logs


@pytest.fixture
def stderr() -> Iterator[io.StringIO]:
    """What the worker's handler writes (see `configure`); the root logger is put back as it was afterwards."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    yield io.StringIO()
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


def configure(log_format: str, into: io.StringIO) -> logs.WorkerLogging:
    handle = logs.configure_logging("INFO", log_format)
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(into)  # the handler writes to stderr; the test reads what it wrote
    return handle


def lines(buffer: io.StringIO) -> list[str]:
    return buffer.getvalue().splitlines()


def test_json_lines_carry_time_level_logger_worker_thread_context_and_traceback(stderr: io.StringIO) -> None:
    handle = configure("json", stderr)
    handle.identify("10.0.0.5:8083")
    log = logging.getLogger("connectors.file.source")

    def in_task() -> None:
        CURRENT_CONTEXT.set("my-source|task-3")
        try:
            raise ValueError("no such file")
        except ValueError:
            log.exception("Task %s failed", "my-source-3")

    contextvars.copy_context().run(in_task)
    log.info("outside any connector")

    failed, outside = (json.loads(line) for line in lines(stderr))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", failed["time"])
    assert {
        k: failed[k] for k in ("level", "logger", "message", "worker_id", "connector.context", "connector", "task")
    } == {
        "level": "ERROR",
        "logger": "connectors.file.source",
        "message": "Task my-source-3 failed",
        "worker_id": "10.0.0.5:8083",
        "connector.context": "my-source|task-3",
        "connector": "my-source",
        "task": 3,
    }
    assert failed["thread"] == "MainThread"
    assert failed["exception"].startswith("Traceback") and "ValueError: no such file" in failed["exception"]
    assert "connector.context" not in outside and "exception" not in outside


def test_a_record_relayed_from_a_task_process_keeps_its_context_in_both_formats(stderr: io.StringIO) -> None:
    def logged_in_child() -> dict[str, object]:
        CURRENT_CONTEXT.set("piped|task-0")
        record = logging.LogRecord("connectors.file.sink", logging.WARNING, __file__, 1, "slow %s", ("disk",), None)
        record.threadName = "task-piped-0"
        return log_record_fields(record, logging.Formatter())

    fields = contextvars.copy_context().run(logged_in_child)
    for log_format in ("json", "text"):
        configure(log_format, stderr)
        logging.getLogger("connectors.file.sink").handle(logging.makeLogRecord(fields))

    as_json, as_text = lines(stderr)
    relayed = json.loads(as_json)
    assert (relayed["connector.context"], relayed["thread"], relayed["message"]) == (
        "piped|task-0",
        "task-piped-0",
        "slow disk",
    )
    assert as_text.endswith("WARNING [piped|task-0] slow disk (connectors.file.sink)")


def test_the_environment_chooses_the_format_before_the_worker_file_is_read() -> None:
    assert logs.format_from_environment({"KCONNECT_LOG_FORMAT": "JSON"}) == "json"
    assert logs.format_from_environment({}) == "text"


def test_the_worker_config_takes_log_format_text_or_json_only() -> None:
    converters = {"key.converter": "StringConverter", "value.converter": "StringConverter"}
    assert WorkerConfig.from_props(converters).get(LOG_FORMAT) == "text"
    assert WorkerConfig.from_props({**converters, LOG_FORMAT: "json"}).get(LOG_FORMAT) == "json"
    with pytest.raises(ConfigError, match=r"log\.format"):
        WorkerConfig.from_props({**converters, LOG_FORMAT: "xml"})
