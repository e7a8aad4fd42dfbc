"""Record pipelines for tests that build task runners by hand: String converters unless told otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from connect.api.converter import Converter
from connect.converters.header import SimpleHeaderConverter
from connect.converters.simple import StringConverter
from connect.runtime.config.connector import ErrorHandlingSettings
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.pipeline.error_handling import ErrorHandler, ErrorReporter, LogReporter
from connect.runtime.pipeline.record_pipeline import RecordPipeline


def record_pipeline(
    task_id: ConnectorTaskId,
    *,
    key: Converter | None = None,
    value: Converter | None = None,
    transformer: Any = None,
    settings: ErrorHandlingSettings | None = None,
    reporters: Sequence[ErrorReporter] | None = None,
) -> RecordPipeline[Any]:
    """Configures the converters; the error handler reports to the log unless `reporters` says otherwise."""
    key = key or StringConverter()
    value = value or StringConverter()
    header = SimpleHeaderConverter()
    key.configure({}, True)
    value.configure({}, False)
    header.configure({})
    settings = settings or ErrorHandlingSettings()
    reporters = [LogReporter(settings)] if reporters is None else reporters
    return RecordPipeline(key, value, header, transformer, ErrorHandler(settings, task_id, reporters))
