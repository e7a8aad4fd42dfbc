"""AvroConverter: Confluent's `io.confluent.connect.avro.AvroConverter`, Avro values framed for a Schema
Registry (magic byte, 4-byte schema id, Avro binary), with Confluent's config keys and AvroData's mapping.

One instance per task and record part, used only by that task's thread, so the caches need no lock.
Hot paths:
- writing: per (topic, Connect schema) the registry id, the 5-byte header, fastavro's parsed schema and
  a compiled value encoder are made once (one registry call per schema and subject, not per record);
  the last one used is checked by identity before any hashing;
- reading: per (topic, schema id) the Avro schema is fetched and turned into a Connect schema, fastavro's
  parsed schema and a compiled value conversion once; a batch (`to_connect_data_batch`) checks each
  value's 4 id bytes against the last id and decodes with the cached reader, so a batch of one schema
  costs no lookup per record.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connect.api.config import ConfigDef
from connect.api.converter import Converter
from connect.api.data import NULL_SCHEMA_AND_VALUE, Schema, SchemaAndValue, SchemaAndValues
from connect.api.errors import DataError, RetriableError
from connect.api.records import Headers
from connect.runtime.converters.schema_registry import wire
from connect.runtime.converters.schema_registry.avro_from_connect import avro_schema_of, full_name_of
from connect.runtime.converters.schema_registry.avro_names import AvroDataOptions
from connect.runtime.converters.schema_registry.avro_to_connect import Convert, read_plan
from connect.runtime.converters.schema_registry.avro_write import Encode, compile_encoder, without_logical_types
from connect.runtime.converters.schema_registry.client import RegistryClient, import_optional
from connect.runtime.converters.schema_registry.settings import RegistrySettings, registry_config_def
from connect.runtime.plugins.version import runtime_version

# What fastavro raises for data that does not fit the schema or bytes that are not a datum of it.
_CODEC_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, EOFError, IndexError, StopIteration)


@dataclass(frozen=True)
class _Writer:
    header: bytes
    parsed: Any
    encode: Encode


@dataclass(frozen=True)
class _Reader:
    schema: Schema
    convert: Convert | None
    parsed: Any
    record_names: bool


def _bounded_put(cache: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    while len(cache) >= size:
        del cache[next(iter(cache))]
    cache[key] = value


class AvroConverter(Converter):
    """Confluent's AvroConverter: `schema.registry.url` and the keys of docs/schema_registry.md."""

    def __init__(self) -> None:
        self._settings: RegistrySettings | None = None
        self._client: RegistryClient | None = None
        self._writers: dict[tuple[str, Schema], _Writer] = {}
        self._readers: dict[tuple[str, int], _Reader] = {}
        self._last_writer: tuple[Schema, str, _Writer] | None = None

    def version(self) -> str:
        return runtime_version()

    def config(self) -> ConfigDef:
        return registry_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self._settings = RegistrySettings.parse(configs, is_key)
        self._is_key = is_key
        self._options = AvroDataOptions(self._settings.connect_meta_data, self._settings.enhanced_schema_support)
        self._fastavro = import_optional("fastavro")
        self._client = RegistryClient(self._settings)
        self._writers.clear()
        self._readers.clear()
        self._last_writer = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    @property
    def client(self) -> RegistryClient:
        if self._client is None:
            raise DataError("AvroConverter used before configure()")
        return self._client

    # ------------------------------------------------------------------------------------ Connect -> bytes

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if value is None:
            if schema is not None and not schema.optional and schema.default is None:
                raise DataError(f"Failed to serialize Avro data from topic {topic}: null value for a required schema")
            return None
        if schema is None:
            raise DataError(
                f"Failed to serialize Avro data from topic {topic}: AvroConverter needs a schema, and this value "
                f"({type(value).__name__}) has none; use a converter for schemaless data (JsonConverter with "
                "schemas.enable=false) or give the records a schema"
            )
        writer = self._writer_for(topic, schema)
        return self._write(topic, writer, value)

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        """One registry lookup (cached) for the column's schema, then each value encoded."""
        if schema is None or any(v is None for v in values):
            return super().from_connect_data_batch(topic, schema, values, headers)
        writer = self._writer_for(topic, schema)
        write = self._write
        return [write(topic, writer, value) for value in values]

    def _write(self, topic: str, writer: _Writer, value: Any) -> bytes:
        out = io.BytesIO()
        out.write(writer.header)
        try:
            self._fastavro.schemaless_writer(out, writer.parsed, writer.encode(value))
        except DataError as exc:
            raise DataError(f"Failed to serialize Avro data from topic {topic}: {exc}") from None
        except _CODEC_ERRORS as exc:
            raise DataError(f"Failed to serialize Avro data from topic {topic}: {type(exc).__name__}: {exc}") from exc
        return out.getvalue()

    def _writer_for(self, topic: str, schema: Schema) -> _Writer:
        last = self._last_writer
        if last is not None and last[0] is schema and last[1] == topic:
            return last[2]
        key = (topic, schema)
        writer = self._writers.get(key)
        if writer is None:
            writer = self._new_writer(topic, schema)
            assert self._settings is not None
            _bounded_put(self._writers, key, writer, self._settings.schemas_cache_size)
        self._last_writer = (schema, topic, writer)
        return writer

    def _new_writer(self, topic: str, schema: Schema) -> _Writer:
        settings = self._settings
        assert settings is not None
        try:
            avro = avro_schema_of(schema, self._options)
            encode = compile_encoder(schema)
        except DataError as exc:
            raise DataError(f"Failed to convert the Connect schema of topic {topic} to Avro: {exc}") from None
        schema_str = json.dumps(avro, separators=(",", ":"))
        subject = settings.subject_strategy.subject(topic, self._is_key, full_name_of(avro))
        client = self.client
        writer_avro = avro
        try:
            if settings.auto_register:
                schema_id = client.register(subject, schema_str)
            elif settings.use_latest_version:
                latest = client.latest(subject)
                if settings.latest_compatibility_strict and not client.is_compatible(subject, schema_str):
                    raise DataError(
                        f"the latest schema of subject {subject} (version {latest.version}, id {latest.schema_id}) "
                        "is not compatible with the schema of the data (latest.compatibility.strict=true)"
                    )
                schema_id, writer_avro = latest.schema_id, json.loads(latest.schema_str)
            else:
                schema_id = client.lookup(subject, schema_str).schema_id
        except RetriableError:
            raise
        except DataError as exc:
            raise DataError(f"Failed to serialize Avro data from topic {topic}: {exc}") from None
        try:
            parsed = self._fastavro.parse_schema(without_logical_types(writer_avro))
        except Exception as exc:
            raise DataError(f"Avro schema of subject {subject} (id {schema_id}) is not valid Avro: {exc}") from None
        return _Writer(wire.header(schema_id), parsed, encode)

    # ------------------------------------------------------------------------------------ bytes -> Connect

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return NULL_SCHEMA_AND_VALUE
        schema_id = wire.schema_id_of(value, topic)
        reader = self._readers.get((topic, schema_id)) or self._new_reader(topic, schema_id)
        return SchemaAndValue(reader.schema, self._read(topic, reader, value))

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        """The column decoded with one cached reader per schema id; None (the runtime then groups the
        records by schema) when the values are of several schemas or some are null."""
        if not values:
            return SchemaAndValues(None, [])
        first = values[0]
        if first is None or any(v is None for v in values):
            return None
        schema_id = wire.schema_id_of(first, topic)
        reader = self._readers.get((topic, schema_id)) or self._new_reader(topic, schema_id)
        id_bytes = first[1 : wire.HEADER_SIZE]
        read = self._read
        decoded = []
        for value in values:
            if value[1 : wire.HEADER_SIZE] != id_bytes or value[0] != wire.MAGIC_BYTE:
                other = self.to_connect_data(topic, value)
                if other.schema != reader.schema:
                    return None
                decoded.append(other.value)
                continue
            decoded.append(read(topic, reader, value))
        return SchemaAndValues(reader.schema, decoded)

    def _read(self, topic: str, reader: _Reader, value: bytes) -> Any:
        buffer = io.BytesIO(value)
        buffer.seek(wire.HEADER_SIZE)
        try:
            datum = self._fastavro.schemaless_reader(
                buffer, reader.parsed, None, reader.record_names, reader.record_names
            )
            return datum if reader.convert is None else reader.convert(datum)
        except DataError as exc:
            raise DataError(f"Failed to deserialize data for topic {topic} to Avro: {exc}") from None
        except _CODEC_ERRORS as exc:
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Avro: the payload is not a valid datum of the "
                f"schema it names ({type(exc).__name__}: {exc})"
            ) from exc

    def _new_reader(self, topic: str, schema_id: int) -> _Reader:
        settings = self._settings
        assert settings is not None
        client = self.client
        try:
            schema_str = client.schema_by_id(schema_id)
        except RetriableError:
            raise
        except DataError as exc:
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Avro: error retrieving the Avro "
                f"{'key' if self._is_key else 'value'} schema for id {schema_id}: {exc}"
            ) from None
        try:
            avro = json.loads(schema_str)
            subject = settings.subject_strategy.subject(topic, self._is_key, full_name_of(avro))
            version = client.version_of(subject, schema_str)
            plan = read_plan(avro, self._options, version)
            parsed = self._fastavro.parse_schema(plan.reader_view)
        except (RetriableError, DataError):
            raise
        except Exception as exc:
            raise DataError(f"The schema with id {schema_id} is not valid Avro: {exc}") from None
        reader = _Reader(plan.schema, plan.convert, parsed, plan.record_names_in_unions)
        _bounded_put(self._readers, (topic, schema_id), reader, settings.schemas_cache_size)
        return reader
