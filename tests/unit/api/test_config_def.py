"""ConfigDef: Kafka's parsing rules per type, its error texts, validators, recommenders and Password hiding.

Connector authors rely on these rules to read their settings, and REST clients show these texts verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connect.api import (
    NO_DEFAULT,
    Config,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    Password,
    Range,
    ValidList,
    ValidString,
    composite,
    invalid_value,
    non_empty_string,
    non_empty_string_without_control_chars,
    non_null,
    single_topic,
)
from connect.api.config import format_value, parse_value


def parse_error(type_: ConfigType, raw: Any) -> str:
    with pytest.raises(ConfigError) as info:
        parse_value("k", type_, raw)
    return str(info.value)


class TestParsing:
    @pytest.mark.parametrize(("raw", "parsed"), [("true", True), (" FALSE ", False), ("True", True)])
    def test_boolean_is_case_insensitive_and_trimmed(self, raw: str, parsed: bool) -> None:
        assert parse_value("k", ConfigType.BOOLEAN, raw) is parsed

    def test_boolean_rejects_other_words(self) -> None:
        assert parse_error(ConfigType.BOOLEAN, "yes") == (
            "Invalid value yes for configuration k: Expected value to be either true or false"
        )

    @pytest.mark.parametrize(("raw", "parsed"), [(" 42 ", 42), ("-7", -7), ("+3", 3), ("2147483647", 2**31 - 1)])
    def test_int_accepts_what_java_parse_int_accepts(self, raw: str, parsed: int) -> None:
        assert parse_value("k", ConfigType.INT, raw) == parsed

    @pytest.mark.parametrize("raw", ["abc", "1.5", "1_000", "", "2147483648"])
    def test_int_rejects_non_numbers_and_out_of_range_with_kafkas_text(self, raw: str) -> None:
        assert parse_error(ConfigType.INT, raw) == f"Invalid value {raw} for configuration k: Not a number of type INT"

    def test_short_and_long_have_their_own_ranges(self) -> None:
        assert parse_value("k", ConfigType.SHORT, "32767") == 32767
        assert parse_error(ConfigType.SHORT, "32768").endswith("Not a number of type SHORT")
        assert parse_value("k", ConfigType.LONG, "9223372036854775807") == 2**63 - 1
        assert parse_error(ConfigType.LONG, "9223372036854775808").endswith("Not a number of type LONG")

    def test_double(self) -> None:
        assert parse_value("k", ConfigType.DOUBLE, " 2.5 ") == 2.5
        assert parse_value("k", ConfigType.DOUBLE, 3) == 3.0
        assert parse_error(ConfigType.DOUBLE, "x") == "Invalid value x for configuration k: Not a number of type DOUBLE"

    @pytest.mark.parametrize(
        ("raw", "parsed"),
        [("a,b", ["a", "b"]), (" a , b ,c ", ["a", "b", "c"]), ("", []), ("  ", []), ("a,", ["a", ""])],
    )
    def test_list_splits_on_commas_with_surrounding_whitespace(self, raw: str, parsed: list[str]) -> None:
        assert parse_value("k", ConfigType.LIST, raw) == parsed

    def test_list_given_as_python_list_is_kept(self) -> None:
        assert parse_value("k", ConfigType.LIST, ["x", "y"]) == ["x", "y"]

    def test_string_and_class_are_trimmed(self) -> None:
        assert parse_value("k", ConfigType.STRING, "  hello ") == "hello"
        assert parse_value("k", ConfigType.CLASS, " a.b.C ") == "a.b.C"
        assert parse_value("k", ConfigType.CLASS, Password) == "connect.api.config.Password"

    def test_password_becomes_a_hidden_password(self) -> None:
        parsed = parse_value("k", ConfigType.PASSWORD, "s3cret")
        assert isinstance(parsed, Password)
        assert parsed.value == "s3cret"

    def test_none_stays_none(self) -> None:
        for type_ in ConfigType:
            assert parse_value("k", type_, None) is None

    def test_python_default_of_the_wrong_type_is_rejected(self) -> None:
        assert parse_error(ConfigType.INT, 1.5) == "Invalid value 1.5 for configuration k: Expected value of type INT"


class TestFormatting:
    def test_values_show_as_kafka_connect_shows_them(self) -> None:
        assert format_value(ConfigType.LIST, ["a", "b"]) == "a,b"
        assert format_value(ConfigType.LIST, []) == ""
        assert format_value(ConfigType.BOOLEAN, False) == "false"
        assert format_value(ConfigType.INT, 5) == "5"
        assert format_value(ConfigType.CLASS, Password) == "connect.api.config.Password"
        assert format_value(ConfigType.STRING, None) is None
        assert format_value(ConfigType.STRING, NO_DEFAULT) is None

    def test_passwords_are_always_hidden(self) -> None:
        assert format_value(ConfigType.PASSWORD, Password("s3cret")) == "[hidden]"
        assert format_value(ConfigType.PASSWORD, "s3cret") == "[hidden]"

    def test_password_never_prints_its_value(self) -> None:
        secret = Password("s3cret")
        assert str(secret) == repr(secret) == f"{secret}" == "[hidden]"
        assert "s3cret" not in repr({"k": secret})
        assert secret == Password("s3cret")
        assert secret != Password("other")

    def test_invalid_value_renders_values_as_java_does(self) -> None:
        assert str(invalid_value("k", None, "r")) == "Invalid value null for configuration k: r"
        assert str(invalid_value("k", ["a", "b"], "r")) == "Invalid value [a, b] for configuration k: r"
        assert str(invalid_value("k", True, "r")) == "Invalid value true for configuration k: r"


class TestValidators:
    def check(self, validator: Any, value: Any) -> str:
        with pytest.raises(ConfigError) as info:
            validator("k", value)
        return str(info.value)

    def test_range(self) -> None:
        assert self.check(Range.at_least(1), 0) == "Invalid value 0 for configuration k: Value must be at least 1"
        assert self.check(Range.between(0, 10), 11) == (
            "Invalid value 11 for configuration k: Value must be no more than 10"
        )
        assert self.check(Range.at_least(0), None) == "Invalid value null for configuration k: Value must be non-null"
        Range.between(0, 10)("k", 10)
        assert str(Range.at_least(1)) == "[1,...]"
        assert str(Range.between(0, 10)) == "[0,...,10]"

    def test_valid_string(self) -> None:
        allowed = ValidString.in_("none", "all")
        allowed("k", "all")
        assert self.check(allowed, "ALL") == "Invalid value ALL for configuration k: String must be one of: none, all"
        insensitive = ValidString.in_("poll", "interval", ignore_case=True)
        insensitive("k", "POLL")
        assert self.check(insensitive, "x") == (
            "Invalid value x for configuration k: String must be one of (case insensitive): POLL, INTERVAL"
        )

    def test_valid_list_checks_each_element(self) -> None:
        allowed = ValidList.in_("a", "b")
        allowed("k", ["a", "b", "a"])
        assert self.check(allowed, ["a", "z"]) == "Invalid value z for configuration k: String must be one of: a, b"

    def test_non_empty_strings(self) -> None:
        non_empty_string("k", None)
        assert self.check(non_empty_string, " ") == "Invalid value   for configuration k: String must be non-empty"
        assert self.check(non_empty_string_without_control_chars, "") == (
            "Invalid value  for configuration k: String may not be empty"
        )
        assert self.check(non_empty_string_without_control_chars, "a\tb\n") == (
            "Invalid value a\tb\n for configuration k: "
            "String may not contain control sequences but had the following ASCII chars: 9, 10"
        )
        non_empty_string_without_control_chars("k", "fine name")

    def test_non_null_and_composite(self) -> None:
        assert self.check(non_null, None) == "Invalid value null for configuration k: entry must be non null"
        both = composite(non_null, Range.at_least(5))
        assert self.check(both, None).endswith("entry must be non null")  # the first failure wins
        assert self.check(both, 1).endswith("Value must be at least 5")

    def test_single_topic(self) -> None:
        single_topic("k", "orders.v1_x-2")
        assert self.check(single_topic, None) == "Invalid value null for configuration k: String must be non-empty"
        assert self.check(single_topic, "a,b") == (
            "Invalid value a,b for configuration k: 'k' requires definition of a single topic, not a list of topics"
        )
        assert self.check(single_topic, "a b").endswith(
            "Topic names are at most 249 characters of ASCII letters, digits, '.', '_' and '-'"
        )
        assert self.check(single_topic, "t" * 250).endswith("'.', '_' and '-'")


class Suggest:
    """Recommends fixed values; visible only when `mode` is "advanced"."""

    def __init__(self, *values: Any) -> None:
        self.values = list(values)

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return self.values

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        return bool(parsed.get("mode") == "advanced")


class Broken:
    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        raise ConfigError(f"cannot list values for {name}")

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        return True


def definition() -> ConfigDef:
    return (
        ConfigDef()
        .define("host", ConfigType.STRING, importance=Importance.HIGH, documentation="Host.", group="Connection")
        .define("port", ConfigType.INT, 5432, Range.between(1, 65535), Importance.MEDIUM, "Port.", group="Connection")
        .define("secret", ConfigType.PASSWORD, None, importance=Importance.HIGH, group="Security")
        .define("tables", ConfigType.LIST, "a,b", importance=Importance.LOW)
        .define("mode", ConfigType.STRING, "simple", recommender=Suggest("simple", "advanced"))
        .define("tuning", ConfigType.STRING, "x", recommender=Suggest("y"))
    )


class TestConfigDef:
    def test_define_rejects_duplicates_and_invalid_defaults(self) -> None:
        with pytest.raises(ConfigError, match=r"^Configuration host is defined twice\.$"):
            definition().define("host", ConfigType.STRING)
        with pytest.raises(ConfigError, match="Value must be at least 1"):
            ConfigDef().define("n", ConfigType.INT, 0, Range.at_least(1))

    def test_keys_keep_definition_order_and_groups_first_seen_order(self) -> None:
        config_def = definition()
        assert config_def.names() == ["host", "port", "secret", "tables", "mode", "tuning"]
        assert config_def.groups() == ["Connection", "Security"]
        assert config_def.keys["host"].required and not config_def.keys["port"].required
        assert config_def.keys["host"].display_name == "host"

    def test_parse_fills_defaults(self) -> None:
        values = definition().parse({"host": "db", "secret": "pw"})
        assert values == {
            "host": "db",
            "port": 5432,
            "secret": Password("pw"),
            "tables": ["a", "b"],
            "mode": "simple",
            "tuning": "x",
        }

    def test_parse_reports_missing_required_and_invalid_values(self) -> None:
        with pytest.raises(ConfigError) as missing:
            definition().parse({})
        assert str(missing.value) == 'Missing required configuration "host" which has no default value.'
        with pytest.raises(ConfigError) as bad:
            definition().parse({"host": "db", "port": "0"})
        assert str(bad.value) == "Invalid value 0 for configuration port: Value must be at least 1"

    def test_validate_reports_every_key_with_every_error(self) -> None:
        results = {v.name: v for v in definition().validate({"port": "x", "mode": "advanced", "tuning": "z"})}
        assert list(results) == ["host", "port", "secret", "tables", "mode", "tuning"]
        assert results["host"].error_messages == ['Missing required configuration "host" which has no default value.']
        assert results["port"].error_messages == ["Invalid value x for configuration port: Not a number of type INT"]
        assert results["tables"].value == ["a", "b"] and results["tables"].error_messages == []
        assert results["secret"].value is None

    def test_validate_runs_validators_on_parsed_values(self) -> None:
        results = {v.name: v for v in definition().validate({"host": "db", "port": "70000"})}
        assert results["port"].value == 70000
        assert results["port"].error_messages == [
            "Invalid value 70000 for configuration port: Value must be no more than 65535"
        ]

    def test_validate_reports_null_values(self) -> None:
        results = {v.name: v for v in definition().validate({"host": None})}
        assert results["host"].error_messages == ["Null value can not be supplied as the configuration value."]

    def test_recommenders_feed_recommended_values_and_visibility(self) -> None:
        results = {v.name: v for v in definition().validate({"host": "db", "mode": "advanced", "tuning": "z"})}
        assert results["mode"].recommended_values == ["simple", "advanced"]
        assert results["tuning"].recommended_values == ["y"]
        assert results["tuning"].visible is True
        # As in Kafka, a value outside the recommendations is not an error: recommenders only suggest.
        assert results["tuning"].error_messages == []
        hidden = {v.name: v for v in definition().validate({"host": "db"})}
        assert hidden["tuning"].visible is False

    def test_a_recommender_that_fails_becomes_an_error_on_its_key(self) -> None:
        config_def = ConfigDef().define("k", ConfigType.STRING, "v", recommender=Broken())
        [result] = config_def.validate({})
        assert result.error_messages == ["cannot list values for k"]

    def test_merged_lets_the_other_definition_win(self) -> None:
        other = (
            ConfigDef().define("port", ConfigType.INT, 1, importance=Importance.LOW).define("extra", ConfigType.INT, 0)
        )
        merged = definition().merged(other)
        assert merged.names() == ["host", "port", "secret", "tables", "mode", "tuning", "extra"]
        assert merged.keys["port"].default == 1


class TestConfig:
    def test_typed_access(self) -> None:
        config = Config(definition(), {"host": " db ", "secret": "pw", "spark.master": "local[2]"})
        assert config.get_str("host") == "db"
        assert config.get_int("port") == 5432
        assert config.get_list("tables") == ["a", "b"]
        secret = config.get_password("secret")
        assert secret is not None and secret.value == "pw"
        assert config.with_prefix("spark.") == {"master": "local[2]"}
        with pytest.raises(ConfigError, match=r"^Unknown configuration 'nope'$"):
            config.get("nope")

    def test_invalid_props_raise(self) -> None:
        with pytest.raises(ConfigError, match="host"):
            Config(definition(), {})
