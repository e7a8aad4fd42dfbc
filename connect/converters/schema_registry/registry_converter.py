"""What Confluent's Schema Registry converters share: the wire format, the registry calls and their
caches, subject names, the batch decode and the error texts. `AvroConverter` and `JsonSchemaConverter`
supply only their format: a Connect schema's registry text, an encoder, and a reader per schema id.

One instance per task and record part, used only by that task's thread, so the caches need no lock.
Hot paths:
- writing: per (topic, Connect schema) the registry id, the 5-byte header and a compiled encoder are
  made once (one registry call per schema and subject, not per record); the last one used is checked by
  identity before any hashing;
- reading: per (topic, schema id) the schema is fetched and turned into a Connect schema and a compiled
  decoder once; a batch (`to_connect_data_batch`) compares each value's 4 id bytes with the first
  value's and decodes with the cached reader: no lookup and no registry call per record.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from connect.api.config import ConfigDef
from connect.api.converter import Converter
from connect.api.data import NULL_SCHEMA_AND_VALUE, Schema, SchemaAndValue, SchemaAndValues, StructColumns
from connect.api.errors import DataError, RetriableError
from connect.api.records import Headers
from connect.api.version import distribution_version
from connect.converters.schema_registry import wire
from connect.converters.schema_registry.client import RegistryClient
from connect.converters.schema_registry.registry_tls import RegistryTls
from connect.converters.schema_registry.settings import RegistrySettings, registry_config_def

# What the codecs raise for data that does not fit the schema, or bytes that are not a value of it.
CODEC_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, EOFError, IndexError, StopIteration)

Encode = Callable[[Any], bytes]
"""A non-null Connect value -> the payload bytes (after the 5-byte header)."""
Decode = Callable[[bytes], Any]
"""A whole framed value (header included) -> the Connect value."""


@dataclass(frozen=True)
class Writer:
    header: bytes
    encode: Encode


ReadColumns = Callable[[Sequence[bytes]], StructColumns]
"""Whole framed values of one struct schema (headers included) -> their Connect values as columns."""


@dataclass(frozen=True)
class Reader:
    schema: Schema | None
    decode: Decode
    read_columns: ReadColumns | None = None
    """Set where the format decodes a struct schema's values field by field (`to_connect_columns_batch`)."""


def bounded_put(cache: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    while len(cache) >= size:
        del cache[next(iter(cache))]
    cache[key] = value


class RegistryConverter(Converter, abc.ABC):
    """A converter of values framed for a Schema Registry; subclasses add the format."""

    format_name: ClassVar[str]
    """As error messages name it: `Avro`, `JSON Schema`."""
    schema_type: ClassVar[str]
    """The registry's name of the schema type: `AVRO`, `JSON`."""

    def __init__(self) -> None:
        self._settings: RegistrySettings | None = None
        self._client: RegistryClient | None = None
        self._tls: RegistryTls | None = None
        self._writers: dict[tuple[str, Schema | None], Writer] = {}
        self._readers: dict[tuple[str, int], Reader] = {}
        self._last_writer: tuple[Schema | None, str, Writer] | None = None
        self._is_key = False

    # ------------------------------------------------------------------------------------ the format

    @abc.abstractmethod
    def _configure_format(self, configs: Mapping[str, Any], settings: RegistrySettings) -> None:
        """Parse the format's own keys and import its libraries."""

    @abc.abstractmethod
    def _schema_text(self, schema: Schema | None) -> tuple[str, str]:
        """The registry text of a Connect schema (None: of schemaless values, or DataError when the
        format has none), and the name subject strategies use (a record's full name, or the type's)."""

    @abc.abstractmethod
    def _encoder(self, schema: Schema | None, writer_text: str, own_text: str) -> Encode:
        """An encoder of values of `schema` into the registered schema `writer_text` (the schema's own
        `own_text`, or the subject's latest with `use.latest.version`)."""

    @abc.abstractmethod
    def _record_name(self, schema_text: str) -> str:
        """The name subject strategies use for a registered schema."""

    @abc.abstractmethod
    def _reader(self, schema_text: str, version: int | None) -> Reader:
        """A reader of values written with the registered schema `schema_text`."""

    def _schema_by_id(self, schema_id: int) -> str:
        """The registered schema's text (formats whose schemas import others fetch those here too)."""
        return self.client.schema_by_id(schema_id, self.schema_type)

    # ------------------------------------------------------------------------------------ lifecycle

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return registry_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self._settings = RegistrySettings.parse(configs, is_key)
        self._is_key = is_key
        self._configure_format(configs, self._settings)
        self.close()
        self._tls = RegistryTls(configs)
        self._client = RegistryClient(self._settings, self._tls.client_conf, check_host_name=self._tls.check_host_name)
        self._writers.clear()
        self._readers.clear()
        self._last_writer = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._tls is not None:
            self._tls.close()
            self._tls = None

    @property
    def client(self) -> RegistryClient:
        if self._client is None:
            raise DataError(f"{type(self).__name__} used before configure()")
        return self._client

    @property
    def settings(self) -> RegistrySettings:
        if self._settings is None:
            raise DataError(f"{type(self).__name__} used before configure()")
        return self._settings

    # ------------------------------------------------------------------------------------ Connect -> bytes

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if value is None:
            if schema is not None and not schema.optional and schema.default is None:
                raise DataError(f"{self._write_failure(topic)}: null value for a required schema")
            return None
        return self._write(topic, self._writer_for(topic, schema), value)

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        """One registry lookup (cached) for the column's schema, then each value encoded."""
        if schema is None or any(v is None for v in values):
            return super().from_connect_data_batch(topic, schema, values, headers)
        writer = self._writer_for(topic, schema)
        write = self._write
        return [write(topic, writer, value) for value in values]

    def _write_failure(self, topic: str) -> str:
        return f"Failed to serialize {self.format_name} data from topic {topic}"

    def _write(self, topic: str, writer: Writer, value: Any) -> bytes:
        try:
            return writer.header + writer.encode(value)
        except DataError as exc:
            raise DataError(f"{self._write_failure(topic)}: {exc}") from None
        except CODEC_ERRORS as exc:
            raise DataError(f"{self._write_failure(topic)}: {type(exc).__name__}: {exc}") from exc

    def _writer_for(self, topic: str, schema: Schema | None) -> Writer:
        last = self._last_writer
        if last is not None and last[0] is schema and last[1] == topic:
            return last[2]
        key = (topic, schema)
        writer = self._writers.get(key)
        if writer is None:
            writer = self._new_writer(topic, schema)
            bounded_put(self._writers, key, writer, self.settings.schemas_cache_size)
        self._last_writer = (schema, topic, writer)
        return writer

    def _new_writer(self, topic: str, schema: Schema | None) -> Writer:
        settings = self.settings
        try:
            own_text, record_name = self._schema_text(schema)
        except DataError as exc:
            raise DataError(
                f"{self._write_failure(topic)}: its Connect schema has no {self.format_name} form: {exc}"
            ) from None
        subject = settings.subject_strategy.subject(topic, self._is_key, record_name)
        client = self.client
        writer_text = own_text
        try:
            if settings.auto_register:
                schema_id = client.register(subject, own_text, self.schema_type)
            elif settings.use_latest_version:
                latest = client.latest(subject)
                if settings.latest_compatibility_strict:
                    self._check_latest(subject, latest.schema_str, own_text, f"version {latest.version}")
                schema_id, writer_text = latest.schema_id, latest.schema_str
            else:
                schema_id = client.lookup(subject, own_text, self.schema_type).schema_id
        except RetriableError:
            raise
        except DataError as exc:
            raise DataError(f"{self._write_failure(topic)}: {exc}") from None
        try:
            encode = self._encoder(schema, writer_text, own_text)
        except DataError as exc:
            raise DataError(f"{self._write_failure(topic)}: {exc}") from None
        except Exception as exc:
            raise DataError(
                f"The {self.format_name} schema of subject {subject} (id {schema_id}) cannot be used: {exc}"
            ) from None
        return Writer(wire.header(schema_id), encode)

    def _latest_problems(self, latest_text: str, own_text: str) -> list[str] | None:
        """Why the subject's latest schema cannot read what the data's schema writes (empty: it can); None
        when the format has no check of its own and the registry is asked instead."""
        return None

    def _check_latest(self, subject: str, latest_text: str, own_text: str, which: str) -> None:
        """`latest.compatibility.strict`: Confluent's serializers write with the latest schema only when it
        can read data of the data's own schema (`isBackwardCompatible`)."""
        problems = self._latest_problems(latest_text, own_text)
        if problems is None:
            compatible = self.client.is_compatible(subject, own_text, self.schema_type)
            problems = [] if compatible else ["the registry found them incompatible"]
        if problems:
            raise DataError(
                f"the latest schema of subject {subject} ({which}) cannot read data of the record's schema "
                f"({'; '.join(problems)}); latest.compatibility.strict=false writes with it anyway"
            )

    # ------------------------------------------------------------------------------------ bytes -> Connect

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return NULL_SCHEMA_AND_VALUE
        reader, _ = self._framed_reader(topic, value)
        return SchemaAndValue(reader.schema, self._read(topic, reader, value))

    def _framed_reader(self, topic: str, value: bytes) -> tuple[Reader, int]:
        """The reader of the schema a framed value names, and where its framing ends: values whose bytes
        before that point are equal have the same reader (framings are prefix-free)."""
        schema_id = wire.schema_id_of(value, topic)
        return self._readers.get((topic, schema_id)) or self._new_reader(topic, schema_id), wire.HEADER_SIZE

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        """The column decoded with one cached reader per schema id; None (the runtime then groups the
        records by schema) when the values are of several schemas or some of them are null."""
        if not values:
            return SchemaAndValues(None, [])
        nulls = sum(1 for v in values if v is None)
        if nulls == len(values):  # the keys of records without keys: no schema, as the runtime has them
            return SchemaAndValues(None, [None] * nulls)
        if nulls:
            return None
        first = values[0]
        assert first is not None
        reader, end = self._framed_reader(topic, first)
        framing = first[1:end]
        read = self._read
        decoded = []
        for value in values:
            assert value is not None
            if value[1:end] != framing or value[0] != wire.MAGIC_BYTE:
                other = self.to_connect_data(topic, value)
                if other.schema != reader.schema:
                    return None
                decoded.append(other.value)
            else:
                decoded.append(read(topic, reader, value))
        return SchemaAndValues(reader.schema, decoded)

    def to_connect_columns_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> StructColumns | None:
        """The column decoded field by field with the cached reader of its one schema id, where the format
        can (Avro records); None when it cannot, or when values are null or of several schema ids."""
        if not values or any(value is None for value in values):
            return None
        first = values[0]
        assert first is not None
        reader, end = self._framed_reader(topic, first)
        read_columns = reader.read_columns
        if read_columns is None:
            return None
        framing = first[1:end]
        if any(value[1:end] != framing or value[0] != wire.MAGIC_BYTE for value in values):  # type: ignore[index]
            return None
        try:
            return read_columns(values)  # type: ignore[arg-type]
        except DataError as exc:
            raise DataError(f"{self._read_failure(topic)}: {exc}") from None
        except CODEC_ERRORS as exc:
            raise self._invalid_payload(topic, exc) from exc

    def _read_failure(self, topic: str) -> str:
        return f"Failed to deserialize data for topic {topic} to {self.format_name}"

    def _invalid_payload(self, topic: str, exc: Exception) -> DataError:
        return DataError(
            f"{self._read_failure(topic)}: the payload is not a valid value of the schema it names "
            f"({type(exc).__name__}: {exc})"
        )

    def _read(self, topic: str, reader: Reader, value: bytes) -> Any:
        try:
            return reader.decode(value)
        except DataError as exc:
            raise DataError(f"{self._read_failure(topic)}: {exc}") from None
        except CODEC_ERRORS as exc:
            raise self._invalid_payload(topic, exc) from exc

    def _new_reader(self, topic: str, schema_id: int) -> Reader:
        settings = self.settings
        client = self.client
        part = "key" if self._is_key else "value"
        try:
            schema_text = self._schema_by_id(schema_id)
        except RetriableError:
            raise
        except DataError as exc:
            raise DataError(
                f"{self._read_failure(topic)}: error retrieving the {self.format_name} {part} schema for id "
                f"{schema_id}: {exc}"
            ) from None
        try:
            subject = settings.subject_strategy.subject(topic, self._is_key, self._record_name(schema_text))
            version = client.version_of(subject, schema_text, self.schema_type)
            reader = self._reader(schema_text, version)
        except RetriableError:
            raise
        except DataError as exc:
            raise DataError(f"{self._read_failure(topic)}: the {part} schema with id {schema_id}: {exc}") from None
        except Exception as exc:
            raise DataError(
                f"{self._read_failure(topic)}: the {part} schema with id {schema_id} is not valid "
                f"{self.format_name}: {exc}"
            ) from None
        bounded_put(self._readers, (topic, schema_id), reader, settings.schemas_cache_size)
        return reader
