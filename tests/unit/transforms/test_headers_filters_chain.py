"""Header SMTs, Filter, predicates, and the transformation chain built from a connector config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connect.api import ConfigError, Header, Schema, SinkRecord, SourceRecord, Struct, Transformation
from connect.api.data import INT8_SCHEMA, INT32_SCHEMA, STRING_SCHEMA
from connect.runtime.domain.info import PluginType
from connect.runtime.pipeline.transformation_chain import (
    TransformationChain,
    predicate_config_defs,
    transform_config_defs,
)
from connect.runtime.plugins import PluginRegistry
from connect.transforms import (
    DropHeaders,
    Filter,
    HasHeaderKey,
    HeaderFromValue,
    InsertHeader,
    RecordIsTombstone,
    TopicNameMatches,
)

ROW = Schema.struct([("id", INT32_SCHEMA), ("name", STRING_SCHEMA)])


def record(topic: str = "orders", value: Any = "v", headers: tuple[Header, ...] = ()) -> SourceRecord:
    return SourceRecord({"file": "f"}, {"pos": 1}, topic, None, None, None, None, value, timestamp=0, headers=headers)


def configured(cls: type[Any], **configs: str) -> Any:
    t = cls()
    t.configure(configs)
    return t


# ------------------------------------------------------------------------------------------------ header SMTs


def test_drop_headers_removes_every_header_with_a_listed_name() -> None:
    headers = (Header("a", 1), Header("b", 2), Header("a", 3), Header("c", 4))
    out = configured(DropHeaders, headers="a,c").apply(record(headers=headers))
    assert out.headers == (Header("b", 2),)
    with pytest.raises(ConfigError, match="headers"):
        configured(DropHeaders)


def test_insert_header_appends_a_typed_literal() -> None:
    out = configured(InsertHeader, header="source", **{"value.literal": "42"}).apply(record(headers=(Header("x", 1),)))
    assert out.headers == (Header("x", 1), Header("source", 42, INT8_SCHEMA))
    text = configured(InsertHeader, header="env", **{"value.literal": "prod"}).apply(record())
    assert text.headers == (Header("env", "prod", STRING_SCHEMA),)


def test_header_from_copies_or_moves_struct_fields() -> None:
    value = Struct(ROW, {"id": 1, "name": "ann"})
    rec = SinkRecord("t", 0, None, None, ROW, value, kafka_offset=0)
    copied = configured(HeaderFromValue, fields="id", headers="row-id", operation="copy").apply(rec)
    assert copied.headers == (Header("row-id", 1, INT32_SCHEMA),)
    assert copied.value is value
    moved = configured(HeaderFromValue, fields="id,name", headers="i,n", operation="move").apply(rec)
    assert moved.headers == (Header("i", 1, INT32_SCHEMA), Header("n", "ann", STRING_SCHEMA))
    assert moved.value_schema.fields == ()
    with pytest.raises(ConfigError, match="same number of elements"):
        configured(HeaderFromValue, fields="a,b", headers="x", operation="copy")


def test_header_from_on_a_map() -> None:
    rec = record(value={"id": 1, "keep": 2})
    moved = configured(HeaderFromValue, fields="id", headers="h", operation="move").apply(rec)
    assert moved.value == {"keep": 2} and moved.headers == (Header("h", 1),)


def test_filter_drops_everything() -> None:
    assert Filter().apply(record()) is None


# ------------------------------------------------------------------------------------------------ predicates


def test_topic_name_matches_needs_a_whole_match() -> None:
    p = configured(TopicNameMatches, pattern="orders-.*")
    assert p.test(record("orders-eu")) and not p.test(record("eu-orders-x"))
    with pytest.raises(ConfigError, match="pattern"):
        configured(TopicNameMatches, pattern="[")


def test_has_header_key_and_record_is_tombstone() -> None:
    p = configured(HasHeaderKey, name="trace")
    assert p.test(record(headers=(Header("trace", None),)))
    assert not p.test(record(headers=(Header("other", 1),)))
    assert RecordIsTombstone().test(record(value=None))
    assert not RecordIsTombstone().test(record(value=0))


# ------------------------------------------------------------------------------------------------ the chain


class Upper(Transformation[Any]):
    """A user's own SMT, found by the registry like a built-in."""

    closed = 0

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.suffix = configs.get("suffix", "")

    def apply(self, record: Any) -> Any:
        return record.with_(value=str(record.value).upper() + self.suffix)

    def close(self) -> None:
        Upper.closed += 1


@pytest.fixture
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def chain(registry: PluginRegistry, **config: str) -> TransformationChain:
    return TransformationChain.from_config(config, registry)


def test_an_empty_chain_returns_the_batch_itself(registry: PluginRegistry) -> None:
    c = chain(registry)
    batch = [record(), record()]
    assert c.apply_batch(batch) is batch
    assert len(c) == 0


def test_transforms_run_in_order_with_java_class_names(registry: PluginRegistry) -> None:
    c = chain(
        registry,
        transforms="route, header",
        **{
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-copy",
            "transforms.header.type": "InsertHeader",
            "transforms.header.header": "h",
            "transforms.header.value.literal": "x",
        },
    )
    assert c.aliases == ["route", "header"]
    out = c.apply(record())
    assert out is not None and out.topic == "orders-copy" and out.headers == (Header("h", "x", STRING_SCHEMA),)


def test_a_predicate_gates_a_transform_and_negate_inverts_it(registry: PluginRegistry) -> None:
    config = {
        "transforms": "drop",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
        "transforms.drop.predicate": "isTest",
        "predicates": "isTest",
        "predicates.isTest.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isTest.pattern": "test-.*",
    }
    c = TransformationChain.from_config(config, registry)
    kept, dropped = record("orders"), record("test-1")
    assert c.apply_batch([kept, dropped]) == [kept]
    assert c.apply_each([kept, dropped]) == [kept, None]
    negated = TransformationChain.from_config({**config, "transforms.drop.negate": "true"}, registry)
    assert negated.apply_batch([kept, dropped]) == [dropped]


def test_user_transforms_get_their_prefixed_settings_and_are_closed() -> None:
    registry = PluginRegistry.of(Upper)
    c = TransformationChain.from_config(
        {"transforms": "u", "transforms.u.type": "Upper", "transforms.u.suffix": "!"}, registry
    )
    out = c.apply(record(value="abc"))
    assert out is not None and out.value == "ABC!"
    before = Upper.closed
    c.close()
    assert Upper.closed == before + 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"transforms": "a"}, 'Missing required configuration "transforms.a.type" which has no default value.'),
        (
            {"transforms": "a", "transforms.a.type": "NoSuch"},
            "Invalid value NoSuch for configuration transforms.a.type: Class NoSuch could not be found.",
        ),
        (
            {"transforms": "a", "transforms.a.type": "TopicNameMatches"},
            "Invalid value TopicNameMatches for configuration transforms.a.type: Not a Transformation",
        ),
        (
            {"transforms": "a,a", "transforms.a.type": "Filter"},
            "Invalid value a,a for configuration transforms: Duplicate alias provided.",
        ),
        (
            {"transforms": "a", "transforms.a.type": "RegexRouter", "transforms.a.regex": "x"},
            'Missing required configuration "transforms.a.replacement" which has no default value.',
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "ExtractFieldValue",
                "transforms.a.field": "x",
                "transforms.a.field.syntax.version": "V9",
            },
            "Invalid value V9 for configuration transforms.a.field.syntax.version: String must be one of",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.predicate": "p"},
            "Invalid value p for configuration transforms.a.predicate",
        ),
        (
            {"transforms": "a", "transforms.a.type": "Filter", "transforms.a.negate": "true"},
            "Config 'transforms.a.negate' was provided but there is no config 'transforms.a.predicate'",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "Filter",
                "transforms.a.predicate": "p",
                "transforms.a.negate": "maybe",
                "predicates": "p",
                "predicates.p.type": "RecordIsTombstone",
            },
            "Invalid value maybe for configuration transforms.a.negate",
        ),
        (
            {"predicates": "p", "predicates.p.type": "HasHeaderKey"},
            'Missing required configuration "predicates.p.name" which has no default value.',
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": "HeaderFromValue",
                "transforms.a.fields": "x,y",
                "transforms.a.headers": "h",
                "transforms.a.operation": "copy",
            },
            "Invalid configuration for transformation a (transforms.a.*): 'fields' config must have the same",
        ),
    ],
)
def test_chain_config_errors_name_the_alias_and_key(
    registry: PluginRegistry, config: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        TransformationChain.from_config(config, registry)
    assert message in str(err.value)


def test_a_failed_chain_closes_what_it_had_configured() -> None:
    registry = PluginRegistry.of(Upper, Filter)
    before = Upper.closed
    with pytest.raises(ConfigError):
        TransformationChain.from_config(
            {"transforms": "u,bad", "transforms.u.type": "Upper", "transforms.bad.type": "Nope"}, registry
        )
    assert Upper.closed == before + 1


def test_config_defs_per_alias_for_validation(registry: PluginRegistry) -> None:
    config = {
        "transforms": "ins, broken",
        "transforms.ins.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.broken.type": "Missing",
        "predicates": "p",
        "predicates.p.type": "TopicNameMatches",
    }
    ins, broken = transform_config_defs(config, registry)
    assert ins.alias == "ins" and ins.prefix == "transforms.ins." and ins.error is None
    assert ins.desc is not None and ins.desc.type is PluginType.TRANSFORMATION
    assert ins.config_def is not None and "topic.field" in ins.config_def.names()
    assert broken.desc is None and broken.error is not None and "transforms.broken.type" in broken.error
    (p,) = predicate_config_defs(config, registry)
    assert p.config_def is not None and p.config_def.names() == ["pattern"]
