"""Converters: between Kafka's bytes and Kafka Connect's (schema, value) pairs.

The runtime configures one key converter and one value converter per task (`configure(configs,
is_key)`) with the worker's or connector's `key.converter.*` / `value.converter.*` settings, prefix
removed. Source path: `from_connect_data` after transforms (`from_connect_data_batch` for a column of a
`SourceRecordBatch`); sink path: `to_connect_data` before transforms (`to_connect_data_batch` for a
column of a `SinkRecordBatch`, when the task takes batches and the connector has no transforms). A
converter raises `DataError` for data it cannot handle.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any

from connect.api.config import ConfigDef
from connect.api.data import Schema, SchemaAndValue, SchemaAndValues, StructColumns
from connect.api.records import Headers


class Converter(abc.ABC):
    """Turns a record's key or value into bytes for Kafka and back; one instance per task and side."""

    def version(self) -> str:
        return "undefined"

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None: ...

    @abc.abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()
    ) -> bytes | None: ...

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        """`from_connect_data` for a column of values of one schema (`headers`: each record's, or None for
        none), in order; raises as it would for the first value that fails, and the runtime then redoes the
        records one by one. A null without a schema is None without a call, as the runtime does for records.
        Override it where converting many values at once is cheaper than one call each."""
        convert = self.from_connect_data
        if headers is None:
            if schema is None:
                return [None if value is None else convert(topic, None, value) for value in values]
            return [convert(topic, schema, value) for value in values]
        return [
            None if value is None and schema is None else convert(topic, schema, value, record_headers)
            for value, record_headers in zip(values, headers, strict=True)
        ]

    @abc.abstractmethod
    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue: ...

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        """`to_connect_data` for a column of one topic's consumed values (`headers`: each record's, or None
        when no record has any), in order: the column's one schema and the values. None when the values do
        not share one schema; the runtime then hands the task the records, grouped by schema. Raises as
        `to_connect_data` would for the first value that fails, and the runtime then converts the records
        one by one under the error policy. Override it where converting many values at once is cheaper
        than one call each."""
        convert = self.to_connect_data
        if headers is None:
            converted = [convert(topic, value) for value in values]
        else:
            converted = [convert(topic, value, h) for value, h in zip(values, headers, strict=True)]
        if not converted:
            return SchemaAndValues(None, [])
        schema = converted[0].schema
        if any(c.schema is not schema and c.schema != schema for c in converted):
            return None
        return SchemaAndValues(schema, [c.value for c in converted])

    def to_connect_columns_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> StructColumns | None:
        """`to_connect_data_batch` for a column whose values are all structs of one schema, given as one list
        per field instead of one Struct per value (for a sink task that takes `value_columns`). None when
        this converter has no columnar form for the column (the default; values that are not structs, a
        null, values of several schemas): the runtime then calls `to_connect_data_batch`. Raises as that
        would, and the runtime then converts the records one by one under the error policy."""
        return None

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called when the task stops."""


class HeaderConverter(abc.ABC):
    """Converts one header value at a time (`header.converter`)."""

    def version(self) -> str:
        return "undefined"

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None: ...

    @abc.abstractmethod
    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue: ...

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called when the task stops."""
