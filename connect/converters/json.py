"""JsonConverter: Kafka Connect's JSON format, with or without the `{"schema", "payload"}` envelope.

One instance per task and record part (key, value, header), used only by that task's thread, so the
caches need no lock. Hot-path design:
- encoding: per schema object (by identity, falling back to the schema's JSON for equal copies) the
  envelope prefix bytes `{"schema":<schema JSON>,"payload":` and a compiled payload encoder are
  cached, so a record costs one encoder call, one `orjson.dumps` and a bytes concatenation;
- decoding: messages that start with a recently seen envelope prefix skip parsing the schema JSON
  and only parse the payload; others parse the envelope and cache the schema by its JSON text.
"""

from __future__ import annotations

import json as stdlib_json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import orjson

from connect.api.config import ConfigDef, ConfigType, Importance, Range, ValidString, Width
from connect.api.converter import Converter, HeaderConverter
from connect.api.data import NULL_SCHEMA_AND_VALUE, Schema, SchemaAndValue, SchemaAndValues
from connect.api.errors import DataError
from connect.api.records import Headers
from connect.api.version import distribution_version
from connect.converters.config import converter_config_def, with_converter_type
from connect.converters.json_decode import InexactNumber, compile_decoder
from connect.converters.json_encode import compile_encoder, schemaless_default, schemaless_to_json
from connect.converters.json_payload import Codec, JsonOptions
from connect.converters.json_schema import schema_from_json, schema_to_json

SCHEMAS_ENABLE_CONFIG = "schemas.enable"
SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size"
DECIMAL_FORMAT_CONFIG = "decimal.format"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"

ENVELOPE_ERROR = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)
_SCHEMA_OPEN = b'{"schema":'
_PAYLOAD_OPEN = b',"payload":'
_NULL_SCHEMA_PREFIX = _SCHEMA_OPEN + b"null" + _PAYLOAD_OPEN
_RECENT_PREFIXES = 8


def json_converter_config_def() -> ConfigDef:
    return (
        converter_config_def()
        .define(
            SCHEMAS_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.HIGH,
            "Include schemas within each of the serialized values and keys.",
            group="Schemas",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Enable Schemas",
        )
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            1000,
            Range.at_least(0),
            Importance.HIGH,
            "The maximum number of schemas that can be cached in this converter instance.",
            group="Schemas",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Schema Cache Size",
        )
        .define(
            DECIMAL_FORMAT_CONFIG,
            ConfigType.STRING,
            "BASE64",
            ValidString.in_("BASE64", "NUMERIC", ignore_case=True),
            Importance.LOW,
            "Controls which format this converter will serialize decimals in. This value is case insensitive "
            "and can be either 'BASE64' (default) or 'NUMERIC'",
            group="Serialization",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Decimal Format",
        )
        .define(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Whether to replace fields that have a default value and that are null to the default value. "
            "When set to true, the default value is used, otherwise null is used.",
            group="Serialization",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Replace null with default",
        )
    )


class _EncodeEntry:
    __slots__ = ("encoder", "prefix", "schema")

    def __init__(self, schema: Schema, prefix: bytes, encoder: Codec) -> None:
        self.schema = schema
        self.prefix = prefix
        self.encoder = encoder


def _bounded_put(cache: dict[Any, Any], key: Any, value: Any, size: int) -> None:
    if size <= 0:
        return
    while len(cache) >= size:
        del cache[next(iter(cache))]
    cache[key] = value


class JsonConverter(Converter, HeaderConverter):
    """Kafka's `org.apache.kafka.connect.json.JsonConverter`; also usable as a header converter."""

    def __init__(self) -> None:
        self._apply({})

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return json_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        self._apply(with_converter_type(configs, is_key))

    def _apply(self, configs: Mapping[str, Any]) -> None:
        definition = json_converter_config_def()
        if "converter.type" not in configs:
            configs = {**configs, "converter.type": "value"}
        values = definition.parse(configs)
        self.schemas_enabled: bool = values[SCHEMAS_ENABLE_CONFIG]
        self._cache_size: int = values[SCHEMAS_CACHE_SIZE_CONFIG]
        self._options = JsonOptions(
            decimal_numeric=str(values[DECIMAL_FORMAT_CONFIG]).upper() == "NUMERIC",
            replace_null_with_default=values[REPLACE_NULL_WITH_DEFAULT_CONFIG],
        )
        self._encode_by_id: dict[int, tuple[Schema, _EncodeEntry]] = {}
        self._encode_by_json: dict[bytes, _EncodeEntry] = {}
        self._decode_by_json: dict[bytes, tuple[Schema | None, Codec]] = {}
        self._recent: list[tuple[bytes, Schema | None, Codec]] = []

    # ------------------------------------------------------------------------------------ Connect -> bytes

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if schema is None:
            if value is None:
                return None
            payload = _dumps_schemaless(value)
            return _NULL_SCHEMA_PREFIX + payload + b"}" if self.schemas_enabled else payload
        entry = self._encode_entry(schema)
        try:
            payload = orjson.dumps(entry.encoder(value))
        except TypeError as exc:
            raise _serialization_error(exc) from exc
        return entry.prefix + payload + b"}" if self.schemas_enabled else payload

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        """`from_connect_data` for a column: the schema's cached encoder and envelope prefix are looked up
        once, and the payloads are serialized by one `orjson.dumps` call (`_dumps_each`). JSON ignores headers."""
        if type(self).from_connect_data is not JsonConverter.from_connect_data:
            return super().from_connect_data_batch(topic, schema, values, headers)  # a subclass's own conversion
        if schema is None:
            payloads = _dumps_schemaless_each(values)
            prefix = _NULL_SCHEMA_PREFIX
        else:
            entry = self._encode_entry(schema)
            encoder = entry.encoder
            try:
                payloads = _dumps_each([encoder(v) for v in values], None)
            except TypeError as exc:
                raise _serialization_error(exc) from exc
            prefix = entry.prefix
        if self.schemas_enabled:
            return [None if p is None else prefix + p + b"}" for p in payloads]
        return payloads

    def from_connect_batch(self, topic: str, items: Sequence[tuple[Schema | None, Any]]) -> list[bytes | None]:
        """`from_connect_data` for many (schema, value) pairs at once."""
        convert = self.from_connect_data
        return [convert(topic, schema, value) for schema, value in items]

    def as_json_schema(self, schema: Schema) -> bytes:
        """The schema's JSON text as it appears in the envelope."""
        return self._encode_entry(schema).prefix[len(_SCHEMA_OPEN) : -len(_PAYLOAD_OPEN)]

    def _encode_entry(self, schema: Schema) -> _EncodeEntry:
        hit = self._encode_by_id.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        schema_json = orjson.dumps(schema_to_json(schema, self._options))
        entry = self._encode_by_json.get(schema_json)
        if entry is None:
            entry = _EncodeEntry(
                schema, _SCHEMA_OPEN + schema_json + _PAYLOAD_OPEN, compile_encoder(schema, self._options)
            )
            _bounded_put(self._encode_by_json, schema_json, entry, self._cache_size)
        # Keeping the schema in the entry keeps its id from being reused while cached.
        _bounded_put(self._encode_by_id, id(schema), (schema, entry), self._cache_size)
        return entry

    # ------------------------------------------------------------------------------------ bytes -> Connect

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return NULL_SCHEMA_AND_VALUE
        if not self.schemas_enabled:
            return SchemaAndValue(None, _loads(value))
        if value.endswith(b"}"):
            for prefix, schema, decoder in self._recent:
                if value.startswith(prefix):
                    try:
                        payload = orjson.loads(memoryview(value)[len(prefix) : -1])
                    except orjson.JSONDecodeError:
                        break  # not exactly {"schema":S,"payload":P}: let the full parse say what is wrong
                    return SchemaAndValue(schema, _decode(decoder, payload, value))
        return self._to_connect_slow(value)

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        if self.schemas_enabled or type(self).to_connect_data is not JsonConverter.to_connect_data:
            # Envelopes: each value names its schema, and the column has one only if they all agree.
            return super().to_connect_data_batch(topic, values, headers)
        try:
            # Schemaless, no nulls, all orjson's (the usual column): parsed by map in C.
            return SchemaAndValues(None, list(map(orjson.loads, values)))  # type: ignore[arg-type]
        except ValueError:
            pass  # a null, a value only the standard parser reads (NaN), or a bad one (raised below)
        return SchemaAndValues(None, [None if value is None else _loads(value) for value in values])

    def _to_connect_slow(self, value: bytes) -> SchemaAndValue:
        node = _loads(value)
        if not isinstance(node, dict) or len(node) != 2 or "schema" not in node or "payload" not in node:
            raise DataError(ENVELOPE_ERROR)
        schema_node = node["schema"]
        if schema_node is None:
            return SchemaAndValue(None, node["payload"])
        key = orjson.dumps(schema_node)
        cached = self._decode_by_json.get(key)
        if cached is None:
            schema = schema_from_json(schema_node, self._options)
            assert schema is not None  # schema_node is not null here
            cached = (schema, compile_decoder(schema, self._options))
            _bounded_put(self._decode_by_json, key, cached, self._cache_size)
        prefix = _SCHEMA_OPEN + key + _PAYLOAD_OPEN
        if value.startswith(prefix):
            if len(self._recent) >= _RECENT_PREFIXES:
                self._recent.pop()
            self._recent.insert(0, (prefix, *cached))
        schema, decoder = cached
        return SchemaAndValue(schema, _decode(decoder, node["payload"], value))

    # ------------------------------------------------------------------------------------ headers

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)


def _loads(value: bytes) -> Any:
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        pass
    # The standard parser also reads what Jackson may write and orjson refuses (NaN, Infinity).
    try:
        return stdlib_json.loads(value)
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"Converting byte[] to Kafka Connect data failed due to serialization error: {exc}") from exc


def _decode(decoder: Codec, payload: Any, raw: bytes) -> Any:
    try:
        return decoder(payload)
    except InexactNumber:
        # A NUMERIC decimal that orjson read as a float: read the message again with exact decimals.
        return decoder(stdlib_json.loads(raw, parse_float=Decimal)["payload"])


def _dumps_schemaless(value: Any) -> bytes:
    try:
        return orjson.dumps(value, default=schemaless_default)
    except TypeError as exc:
        if isinstance(exc.__cause__, DataError):
            raise exc.__cause__ from None
        try:
            # Maps with non-string keys: Kafka writes them as [[key, value], ...].
            return orjson.dumps(schemaless_to_json(value), default=schemaless_default)
        except TypeError as again:
            raise _serialization_error(again) from again


# One orjson.dumps call per value costs about 2 µs of fixed cost on the benchmark machines, against 20-90 ns
# per value when a whole list is serialized at once (docs/architecture.md, "Hot paths"). orjson's compact
# output never holds a raw newline (strings escape it), so a list with a raw "\n" fragment between the values
# serializes to `[v1,\n,v2,\n,...]`, and splitting at ",\n," gives each value's bytes back.
_SPLIT_MARK = orjson.Fragment(b"\n")
_SPLIT_AT = b",\n,"


def _dumps_each(payloads: list[Any], default: Any) -> list[bytes | None]:
    """`orjson.dumps` of each payload, with one call for the whole list; raises TypeError as dumps does."""
    count = len(payloads)
    if count < 2:
        return [orjson.dumps(p, default=default) for p in payloads]
    marked = [_SPLIT_MARK] * (2 * count - 1)
    marked[::2] = payloads
    pieces: list[bytes | None] = orjson.dumps(marked, default=default)[1:-1].split(_SPLIT_AT)  # type: ignore[assignment]
    if len(pieces) != count:  # a payload was itself a Fragment holding the mark: serialize them one by one
        return [orjson.dumps(p, default=default) for p in payloads]
    return pieces


def _dumps_schemaless_each(values: Sequence[Any]) -> list[bytes | None]:
    """`_dumps_schemaless` of each value, None for None."""
    try:
        pieces = _dumps_each(values if isinstance(values, list) else list(values), schemaless_default)
    except TypeError:
        # What the one-by-one path handles (maps with non-string keys) or reports (the value that fails).
        return [None if v is None else _dumps_schemaless(v) for v in values]
    return [None if v is None else p for v, p in zip(values, pieces, strict=True)]


def _serialization_error(exc: TypeError) -> DataError:
    if isinstance(exc.__cause__, DataError):
        return exc.__cause__
    return DataError(f"Converting Kafka Connect data to byte[] failed due to serialization error: {exc}")
