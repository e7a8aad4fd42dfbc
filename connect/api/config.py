"""Config definitions, parsing and validation, with Kafka Connect's semantics.

A connector describes its settings with a `ConfigDef`; the runtime uses it to parse the string map a
user posted (`ConfigDef.parse`) and to answer the REST validate endpoint (`ConfigDef.validate`, whose
`ConfigValue`s become Kafka Connect's `ConfigInfos`). Types, importance, widths, the parsing rules
and the error texts follow Kafka's `ConfigDef`, because REST clients and UIs show them to users.

Usage::

    CONFIG_DEF = (
        ConfigDef()
        .define("file", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
                documentation="Source filename.")
        .define("batch.size", ConfigType.INT, 2000, Range.at_least(1), Importance.LOW,
                "Lines per poll.")
    )
    values = CONFIG_DEF.parse(props)      # {"file": "...", "batch.size": 2000}; ConfigError if invalid
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from connect.api.errors import ConfigError


class ConfigType(enum.Enum):
    """The type of a setting; decides how its string value is parsed (Kafka's ConfigDef.Type)."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(enum.Enum):
    """How much a user should care about a setting; UIs sort and filter by it."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(enum.Enum):
    """A hint for UIs about how wide an input field for the setting should be."""

    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()
"""Marks a key as required: it has no default value."""


class Password:
    """A secret: its string form is `[hidden]` so it never leaks into logs or validate responses."""

    HIDDEN = "[hidden]"
    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __str__(self) -> str:
        return self.HIDDEN

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


def invalid_value(name: str, value: Any, reason: str) -> ConfigError:
    """Kafka's ConfigException text, which clients show verbatim."""
    return ConfigError(f"Invalid value {_java_str(value)} for configuration {name}: {reason}")


def _java_str(value: Any) -> str:
    # Values appear in messages as Java prints them: null, true, [a, b].
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_java_str(v) for v in value) + "]"
    return str(value)


class Validator(Protocol):
    """Checks one parsed value; raises `ConfigError` (use `invalid_value`) when it is not acceptable."""

    def __call__(self, name: str, value: Any) -> None: ...


class Recommender(Protocol):
    """Suggests values for a key and whether it applies, given the other parsed values."""

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]: ...

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool: ...


@dataclass(frozen=True)
class Range:
    """Numeric bounds, inclusive. `Range.at_least(1)`, `Range.between(0, 100)`."""

    low: float | None = None
    high: float | None = None

    @staticmethod
    def at_least(low: float) -> Range:
        return Range(low, None)

    @staticmethod
    def between(low: float, high: float) -> Range:
        return Range(low, high)

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            raise invalid_value(name, value, "Value must be non-null")
        if self.low is not None and value < self.low:
            raise invalid_value(name, value, f"Value must be at least {_num(self.low)}")
        if self.high is not None and value > self.high:
            raise invalid_value(name, value, f"Value must be no more than {_num(self.high)}")

    def __str__(self) -> str:
        if self.high is None:
            return f"[{_num(self.low)},...]"
        low = "..." if self.low is None else _num(self.low)
        return f"[{low},...,{_num(self.high)}]"


def _num(n: float | None) -> str:
    return str(int(n)) if isinstance(n, float) and n.is_integer() else str(n)


@dataclass(frozen=True)
class ValidString:
    """The value must be one of `allowed` (case-sensitive unless `ignore_case`)."""

    allowed: tuple[str, ...]
    ignore_case: bool = False

    @staticmethod
    def in_(*allowed: str, ignore_case: bool = False) -> ValidString:
        return ValidString(tuple(allowed), ignore_case)

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return
        if self.ignore_case:
            if str(value).upper() not in (a.upper() for a in self.allowed):
                allowed = ", ".join(a.upper() for a in self.allowed)
                raise invalid_value(name, value, f"String must be one of (case insensitive): {allowed}")
        elif value not in self.allowed:
            raise invalid_value(name, value, f"String must be one of: {', '.join(self.allowed)}")

    def __str__(self) -> str:
        return "[" + ", ".join(self.allowed) + "]"


@dataclass(frozen=True)
class ValidList:
    """Every element of a LIST value must be one of `allowed`."""

    allowed: tuple[str, ...]

    @staticmethod
    def in_(*allowed: str) -> ValidList:
        return ValidList(tuple(allowed))

    def __call__(self, name: str, value: Any) -> None:
        for item in value or ():
            if item not in self.allowed:
                raise invalid_value(name, item, f"String must be one of: {', '.join(self.allowed)}")

    def __str__(self) -> str:
        return "[" + ", ".join(self.allowed) + "]"


def non_empty_string(name: str, value: Any) -> None:
    """Rejects an empty (or whitespace-only) string."""
    if value is not None and not str(value).strip():
        raise invalid_value(name, value, "String must be non-empty")


_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def non_empty_string_without_control_chars(name: str, value: Any) -> None:
    """What Kafka Connect requires of connector names."""
    if value is None or not str(value).strip():
        raise invalid_value(name, value, "String may not be empty")
    if _CONTROL_CHARS.search(str(value)):
        raise invalid_value(
            name,
            value,
            "String may not contain control sequences but had the following ASCII chars: "
            + ", ".join(str(ord(c)) for c in _CONTROL_CHARS.findall(str(value))),
        )


def non_null(name: str, value: Any) -> None:
    if value is None:
        raise invalid_value(name, value, "entry must be non null")


_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")


def single_topic(name: str, value: Any) -> None:
    """Exactly one legal Kafka topic name; a comma-separated list is rejected (for a connector's `topic` key)."""
    if value is None or not str(value).strip():
        raise invalid_value(name, value, "String must be non-empty")
    if "," in str(value):
        raise invalid_value(name, value, f"'{name}' requires definition of a single topic, not a list of topics")
    if not _LEGAL_TOPIC.fullmatch(str(value)):
        raise invalid_value(
            name, value, "Topic names are at most 249 characters of ASCII letters, digits, '.', '_' and '-'"
        )


def composite(*validators: Validator) -> Validator:
    """All validators in order; the first failure wins."""

    def check(name: str, value: Any) -> None:
        for v in validators:
            v(name, value)

    return check


@dataclass(frozen=True)
class ConfigKey:
    """One defined setting. `default is NO_DEFAULT` means required."""

    name: str
    type: ConfigType
    default: Any
    validator: Validator | None
    importance: Importance
    documentation: str
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


@dataclass
class ConfigValue:
    """The validation result for one key: Kafka Connect's `ConfigValue` (becomes `ConfigValueInfo`)."""

    name: str
    value: Any = None
    recommended_values: list[Any] = field(default_factory=list)
    error_messages: list[str] = field(default_factory=list)
    visible: bool = True


_LIST_SPLIT = re.compile(r"\s*,\s*")
_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")
_INT_BOUNDS = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1),
    ConfigType.INT: (-(2**31), 2**31 - 1),
    ConfigType.LONG: (-(2**63), 2**63 - 1),
}


def parse_value(name: str, type_: ConfigType, value: Any) -> Any:
    """Parse one raw value (normally a string) into the key's Python type, as Kafka's ConfigDef does."""
    if value is None:
        return None
    if type_ is ConfigType.PASSWORD:
        return value if isinstance(value, Password) else Password(str(value))
    if type_ is ConfigType.LIST and isinstance(value, list | tuple):
        return [str(v) for v in value]
    if not isinstance(value, str):
        value = _from_python(name, type_, value)
        if not isinstance(value, str):
            return value
    trimmed = value.strip()
    if type_ is ConfigType.BOOLEAN:
        if trimmed.lower() in ("true", "false"):
            return trimmed.lower() == "true"
        raise invalid_value(name, value, "Expected value to be either true or false")
    if type_ in _INT_BOUNDS:
        low, high = _INT_BOUNDS[type_]
        # Java's parseInt: optional sign and decimal digits only, and out of range is "not a number" too.
        if not _JAVA_INTEGER.fullmatch(trimmed) or not low <= int(trimmed) <= high:
            raise invalid_value(name, value, f"Not a number of type {type_.value}")
        return int(trimmed)
    if type_ is ConfigType.DOUBLE:
        try:
            return float(trimmed)
        except ValueError:
            raise invalid_value(name, value, "Not a number of type DOUBLE") from None
    if type_ is ConfigType.LIST:
        return [] if not trimmed else _LIST_SPLIT.split(trimmed)
    # STRING and CLASS: the trimmed text (classes are resolved by the runtime's plug-in registry).
    return trimmed


def _from_python(name: str, type_: ConfigType, value: Any) -> Any:
    """Accepts defaults written as Python values (2000, True, ["a"]) as well as strings."""
    if type_ is ConfigType.BOOLEAN and isinstance(value, bool):
        return value
    if type_ in _INT_BOUNDS and isinstance(value, int) and not isinstance(value, bool):
        return value
    if type_ is ConfigType.DOUBLE and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if type_ in (ConfigType.CLASS, ConfigType.STRING) and isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    raise invalid_value(name, value, f"Expected value of type {type_.value}")


def format_value(type_: ConfigType, value: Any) -> str | None:
    """The string form Kafka Connect shows for a parsed value (LIST comma-joined, PASSWORD hidden)."""
    if value is None or value is NO_DEFAULT:
        return None
    if type_ is ConfigType.PASSWORD:
        return Password.HIDDEN
    if type_ is ConfigType.BOOLEAN and isinstance(value, bool):
        return "true" if value else "false"
    if type_ is ConfigType.LIST and isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return str(value)


class ConfigDef:
    """An ordered set of `ConfigKey`s. `define` returns self so definitions chain."""

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self._keys: dict[str, ConfigKey] = {k.name: k for k in keys}

    def define(
        self,
        name: str,
        type: ConfigType,
        default: Any = NO_DEFAULT,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        *,
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Sequence[str] = (),
        recommender: Recommender | None = None,
    ) -> ConfigDef:
        if name in self._keys:
            raise ConfigError(f"Configuration {name} is defined twice.")
        if default is not NO_DEFAULT and default is not None:
            parsed_default = parse_value(name, type, default)
            if validator is not None:
                validator(name, parsed_default)
        self._keys[name] = ConfigKey(
            name,
            type,
            default,
            validator,
            importance,
            documentation,
            group,
            order_in_group,
            width,
            display_name or name,
            tuple(dependents),
            recommender,
        )
        return self

    @property
    def keys(self) -> Mapping[str, ConfigKey]:
        return self._keys

    def names(self) -> list[str]:
        return list(self._keys)

    def groups(self) -> list[str]:
        seen: dict[str, None] = {}
        for key in self._keys.values():
            if key.group:
                seen.setdefault(key.group)
        return list(seen)

    def merged(self, other: ConfigDef) -> ConfigDef:
        """A new ConfigDef with this one's keys and then `other`'s; `other` wins on duplicate names."""
        merged = ConfigDef(self._keys.values())
        for key in other._keys.values():
            merged._keys[key.name] = key
        return merged

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Parsed values for every defined key (defaults filled in); ConfigError on the first problem."""
        values: dict[str, Any] = {}
        for key in self._keys.values():
            if key.name in props:
                value = parse_value(key.name, key.type, props[key.name])
            elif key.required:
                raise ConfigError(f'Missing required configuration "{key.name}" which has no default value.')
            else:
                value = parse_value(key.name, key.type, key.default)
            if key.validator is not None:
                key.validator(key.name, value)
            values[key.name] = value
        return values

    def validate(self, props: Mapping[str, Any]) -> list[ConfigValue]:
        """One `ConfigValue` per defined key with every error found (never raises for bad values)."""
        parsed: dict[str, Any] = {}
        results: dict[str, ConfigValue] = {}
        for key in self._keys.values():
            result = ConfigValue(key.name)
            results[key.name] = result
            if key.name in props:
                raw = props[key.name]
                if raw is None:
                    result.error_messages.append("Null value can not be supplied as the configuration value.")
                    continue
                try:
                    parsed[key.name] = parse_value(key.name, key.type, raw)
                except ConfigError as exc:
                    result.value = raw
                    result.error_messages.append(str(exc))
                    continue
            elif key.required:
                result.error_messages.append(f'Missing required configuration "{key.name}" which has no default value.')
                continue
            else:
                parsed[key.name] = parse_value(key.name, key.type, key.default)
            result.value = parsed[key.name]
            if key.validator is not None:
                try:
                    key.validator(key.name, parsed[key.name])
                except ConfigError as exc:
                    result.error_messages.append(str(exc))
        for key in self._keys.values():
            if key.recommender is None:
                continue
            result = results[key.name]
            try:
                result.recommended_values = list(key.recommender.valid_values(key.name, parsed))
                result.visible = key.recommender.visible(key.name, parsed)
            except ConfigError as exc:
                result.error_messages.append(str(exc))
        return list(results.values())


class Config:
    """Parsed settings with typed accessors; what connectors usually keep after `start(props)`.

    `Config(CONFIG_DEF, props)` raises ConfigError when props are invalid. Keys not in the def stay
    readable as raw strings through `originals`, e.g. for pass-through prefixes (`spark.*`).
    """

    def __init__(self, definition: ConfigDef, props: Mapping[str, str]) -> None:
        self.definition = definition
        self.originals: dict[str, str] = dict(props)
        self.values = definition.parse(props)

    def get(self, name: str) -> Any:
        if name not in self.values:
            raise ConfigError(f"Unknown configuration '{name}'")
        return self.values[name]

    def get_str(self, name: str) -> str:
        return str(self.get(name))

    def get_optional_str(self, name: str) -> str | None:
        value = self.get(name)
        return None if value is None else str(value)

    def get_int(self, name: str) -> int:
        return int(self.get(name))

    def get_float(self, name: str) -> float:
        return float(self.get(name))

    def get_bool(self, name: str) -> bool:
        return bool(self.get(name))

    def get_list(self, name: str) -> list[str]:
        return list(self.get(name) or [])

    def get_password(self, name: str) -> Password | None:
        value = self.get(name)
        return value if isinstance(value, Password) or value is None else Password(str(value))

    def with_prefix(self, prefix: str, strip: bool = True) -> dict[str, str]:
        """The original entries whose keys start with `prefix` (prefix removed unless strip=False)."""
        return {(k[len(prefix) :] if strip else k): v for k, v in self.originals.items() if k.startswith(prefix)}


LambdaValidator = Callable[[str, Any], None]
