"""AvroConverter: Confluent's `io.confluent.connect.avro.AvroConverter`, Avro binary values framed for a
Schema Registry, with Confluent's config keys (registry_converter.py) and AvroData's type mapping
(avro_from_connect.py, avro_to_connect.py, avro_write.py). fastavro encodes and decodes; its parsed
schemas are made once per schema (writing) and per schema id (reading).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from connect.api.data import Schema, StructColumns
from connect.converters.schema_registry import wire
from connect.converters.schema_registry.avro_anything import (
    ANYTHING_SCHEMA,
    from_anything,
    is_anything,
    to_anything,
)
from connect.converters.schema_registry.avro_compatibility import read_problems
from connect.converters.schema_registry.avro_from_connect import avro_schema_of, full_name_of
from connect.converters.schema_registry.avro_names import AvroDataOptions
from connect.converters.schema_registry.avro_references import self_contained
from connect.converters.schema_registry.avro_to_connect import read_plan
from connect.converters.schema_registry.avro_write import compile_encoder, without_logical_types
from connect.converters.schema_registry.client import import_optional
from connect.converters.schema_registry.registry_converter import Encode, Reader, RegistryConverter
from connect.converters.schema_registry.settings import RegistrySettings


class AvroConverter(RegistryConverter):
    """Confluent's AvroConverter: `schema.registry.url` and the keys of docs/schema_registry.md."""

    format_name = "Avro"
    schema_type = "AVRO"

    def _configure_format(self, configs: Mapping[str, Any], settings: RegistrySettings) -> None:
        self._options = AvroDataOptions(settings.connect_meta_data, settings.enhanced_schema_support)
        self._fastavro = import_optional("fastavro")

    def _schema_text(self, schema: Schema | None) -> tuple[str, str]:
        avro = ANYTHING_SCHEMA if schema is None else avro_schema_of(schema, self._options)
        return json.dumps(avro, separators=(",", ":")), full_name_of(avro)

    def _latest_problems(self, latest_text: str, own_text: str) -> list[str] | None:
        return read_problems(json.loads(latest_text), json.loads(own_text))

    def _record_name(self, schema_text: str) -> str:
        return full_name_of(json.loads(schema_text))

    def _encoder(self, schema: Schema | None, writer_text: str, own_text: str) -> Encode:
        # The writer schema without logical types: the encoder hands fastavro their encoded primitives.
        parsed = self._fastavro.parse_schema(without_logical_types(json.loads(writer_text)))
        to_datum = to_anything if schema is None else compile_encoder(schema)
        write = self._fastavro.schemaless_writer

        def encode(value: Any) -> bytes:
            out = io.BytesIO()
            write(out, parsed, to_datum(value))
            return out.getvalue()

        return encode

    def _schema_by_id(self, schema_id: int) -> str:
        # A schema with references (a serializer registered its nested types under subjects of their own)
        # is made self-contained once, when its reader is made.
        fetched = self.client.fetch_by_id(schema_id, self.schema_type)
        return self_contained(fetched, self.client.fetch_version)

    def _reader(self, schema_text: str, version: int | None) -> Reader:
        avro = json.loads(schema_text)
        if is_anything(avro):
            return self._schemaless_reader(avro)
        plan = read_plan(avro, self._options, version)
        parsed = self._fastavro.parse_schema(plan.reader_view)
        read = self._fastavro.schemaless_reader
        convert, names = plan.convert, plan.record_names_in_unions
        header = wire.HEADER_SIZE

        def decode(value: bytes) -> Any:
            buffer = io.BytesIO(value)
            buffer.seek(header)
            datum = read(buffer, parsed, None, names, names)
            return datum if convert is None else convert(datum)

        to_columns = plan.to_columns
        if to_columns is None:
            return Reader(plan.schema, decode)

        def read_columns(values: Sequence[bytes]) -> StructColumns:
            records = []
            for value in values:
                buffer = io.BytesIO(value)
                buffer.seek(header)
                records.append(read(buffer, parsed, None, names, names))
            return to_columns(records)

        return Reader(plan.schema, decode, read_columns)

    def _schemaless_reader(self, avro: Any) -> Reader:
        """Values written without a Connect schema (Confluent's Anything record): schema None."""
        parsed = self._fastavro.parse_schema(avro)
        read = self._fastavro.schemaless_reader
        header = wire.HEADER_SIZE

        def decode(value: bytes) -> Any:
            buffer = io.BytesIO(value)
            buffer.seek(header)
            return from_anything(read(buffer, parsed, None))

        return Reader(None, decode)
