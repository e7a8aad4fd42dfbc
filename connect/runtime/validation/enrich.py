"""The enriched connector ConfigDef: the framework definition plus, per transform and predicate alias, its
`type` key and the plug-in's own keys under `transforms.<alias>.` / `predicates.<alias>.`.

Mirrors Kafka's `ConnectorConfig.enrich` with requireFullConfig=false (a type that cannot be resolved
becomes an error on its `type` key, not an exception) and `ConfigDef.embed` (child keys sorted as Kafka
sorts them, validators and recommenders see unprefixed names). Converter class keys get a validator
that resolves the class in the registry. Called on the validating request's thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from connect.api.config import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    Importance,
    Recommender,
    Validator,
    Width,
    composite,
    invalid_value,
    parse_value,
)
from connect.api.errors import ConfigError, ConnectError
from connect.runtime.config.connector import (
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    PREDICATES_CONFIG,
    PREDICATES_GROUP,
    TRANSFORMS_CONFIG,
    TRANSFORMS_GROUP,
    VALUE_CONVERTER_CLASS_CONFIG,
)
from connect.runtime.domain.info import PluginType
from connect.runtime.plugins import PluginRegistry

PREDICATE_CONFIG = "predicate"
NEGATE_CONFIG = "negate"

_IMPORTANCE_ORDER = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


def sorted_keys(definition: ConfigDef) -> list[ConfigKey]:
    """Kafka's `ConfigDef.sortedConfigs`: ungrouped first, then by group, order in group, required first,
    importance, name."""
    group_order = {group: i for i, group in enumerate(definition.groups())}

    def sort_key(key: ConfigKey) -> tuple[int, int, int, int, int, str]:
        grouped = 0 if key.group is None else 1
        return (
            grouped,
            group_order.get(key.group, 0) if key.group else 0,
            key.order_in_group,
            0 if key.required else 1,
            _IMPORTANCE_ORDER[key.importance],
            key.name,
        )

    return sorted(definition.keys.values(), key=sort_key)


class _PrefixedRecommender:
    """A child recommender seen from the parent: names and parsed values without the prefix."""

    def __init__(self, prefix: str, base: Recommender) -> None:
        self._prefix = prefix
        self._base = base

    def _unprefixed(self, parsed: Mapping[str, Any]) -> dict[str, Any]:
        n = len(self._prefix)
        return {k[n:]: v for k, v in parsed.items() if k.startswith(self._prefix)}

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return self._base.valid_values(name[len(self._prefix) :], self._unprefixed(parsed))

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        return self._base.visible(name[len(self._prefix) :], self._unprefixed(parsed))


def _prefixed_validator(prefix: str, base: Validator) -> Validator:
    def check(name: str, value: Any) -> None:
        base(name[len(prefix) :], value)

    return check


def embed(prefix: str, group: str, first_order: int, child: ConfigDef) -> list[ConfigKey]:
    """`child`'s keys renamed under `prefix`, in group `group` (`group: <child group>` if they had one)."""
    keys = []
    for order, key in enumerate(sorted_keys(child), start=first_order):
        keys.append(
            dataclasses.replace(
                key,
                name=prefix + key.name,
                validator=None if key.validator is None else _prefixed_validator(prefix, key.validator),
                group=group if key.group is None else f"{group}: {key.group}",
                order_in_group=order,
                dependents=tuple(prefix + d for d in key.dependents),
                recommender=None if key.recommender is None else _PrefixedRecommender(prefix, key.recommender),
            )
        )
    return keys


class _ClassRecommender:
    """Recommends every installed plug-in of one type for a `type` key."""

    def __init__(self, registry: PluginRegistry, plugin_type: PluginType) -> None:
        self._registry = registry
        self._type = plugin_type

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return [desc.class_name for desc in self._registry.plugins(self._type)]

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        return True


class _Configurable(Protocol):
    def config(self) -> ConfigDef: ...


@dataclasses.dataclass(frozen=True)
class _AliasKind:
    list_config: str  # "transforms"
    group: str  # "Transforms"
    noun: str  # "transformation"
    base_name: str  # "Transformation"
    plugin_type: PluginType
    resolve: Callable[[PluginRegistry, str], type[_Configurable]]


_TRANSFORMS = _AliasKind(
    TRANSFORMS_CONFIG,
    TRANSFORMS_GROUP,
    "transformation",
    "Transformation",
    PluginType.TRANSFORMATION,
    PluginRegistry.transformation_class,
)
_PREDICATES = _AliasKind(
    PREDICATES_CONFIG, PREDICATES_GROUP, "predicate", "Predicate", PluginType.PREDICATE, PluginRegistry.predicate_class
)


def _implicit_transform_keys() -> ConfigDef:
    # Every transformation gets these two, which mask any of the plug-in's own keys of the same names.
    return (
        ConfigDef()
        .define(
            PREDICATE_CONFIG,
            ConfigType.STRING,
            None,
            importance=Importance.MEDIUM,
            documentation="The alias of a predicate used to determine whether to apply this transformation.",
        )
        .define(
            NEGATE_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Whether the configured predicate should be negated.",
        )
    )


def _plugin_definition(
    kind: _AliasKind, registry: PluginRegistry, type_key: str, type_name: str
) -> ConfigDef | ConfigError:
    """The plug-in's ConfigDef, or the error to show on its `type` key."""
    try:
        cls = kind.resolve(registry, type_name)
    except ConnectError:
        return invalid_value(type_key, type_name, f"Class {type_name} could not be found.")
    try:
        definition = cls().config()
    except Exception as exc:  # plug-in code: whatever it raises becomes a validation error
        return invalid_value(type_key, type_name, f"Error getting config definition from {kind.base_name}: {exc}")
    if kind is _TRANSFORMS:
        own = ConfigDef(k for k in definition.keys.values() if k.name not in (PREDICATE_CONFIG, NEGATE_CONFIG))
        definition = _implicit_transform_keys().merged(own)
    return definition


def _type_validator(kind: _AliasKind, prefix: str, config: Mapping[str, Any], problem: ConfigError | None) -> Validator:
    def check(name: str, value: Any) -> None:
        negate, predicate = prefix + NEGATE_CONFIG, prefix + PREDICATE_CONFIG
        if kind is _TRANSFORMS and negate in config and predicate not in config:
            raise ConfigError(
                f"Config '{negate}' was provided but there is no config '{predicate}' "
                "defining a predicate to be negated."
            )
        if problem is not None:
            raise problem

    return check


def _alias_keys(kind: _AliasKind, config: Mapping[str, Any], registry: PluginRegistry) -> list[ConfigKey]:
    raw = config.get(kind.list_config)
    if raw is None:
        return []
    keys: list[ConfigKey] = []
    for alias in dict.fromkeys(parse_value(kind.list_config, ConfigType.LIST, raw)):
        prefix = f"{kind.list_config}.{alias}."
        group = f"{kind.group}: {alias}"
        type_name = config.get(prefix + "type")
        definition: ConfigDef | ConfigError | None = None
        if type_name is not None and str(type_name).strip():
            definition = _plugin_definition(kind, registry, prefix + "type", str(type_name).strip())
        problem = definition if isinstance(definition, ConfigError) else None
        keys.append(
            ConfigKey(
                name=prefix + "type",
                type=ConfigType.CLASS,
                default=NO_DEFAULT,
                validator=_type_validator(kind, prefix, config, problem),
                importance=Importance.HIGH,
                documentation=f"Class for the '{alias}' {kind.noun}.",
                group=group,
                order_in_group=0,
                width=Width.LONG,
                display_name=f"{kind.base_name} type for {alias}",
                recommender=_ClassRecommender(registry, kind.plugin_type),
            )
        )
        if isinstance(definition, ConfigDef):
            keys.extend(embed(prefix, group, 1, definition))
    return keys


def _converter_validator(resolve: Callable[[str], type]) -> Validator:
    def check(name: str, value: Any) -> None:
        if value is None:
            return
        try:
            resolve(str(value))
        except ConnectError:
            raise invalid_value(name, value, f"Class {value} could not be found.") from None

    return check


def enriched_config_def(base: ConfigDef, config: Mapping[str, Any], registry: PluginRegistry) -> ConfigDef:
    """`base` plus the keys of the transforms and predicates `config` names, with converter classes checked."""
    resolvers: dict[str, Callable[[str], type]] = {
        KEY_CONVERTER_CLASS_CONFIG: registry.converter_class,
        VALUE_CONVERTER_CLASS_CONFIG: registry.converter_class,
        HEADER_CONVERTER_CLASS_CONFIG: registry.header_converter_class,
    }
    keys = []
    for key in base.keys.values():
        if key.name in resolvers:
            check = _converter_validator(resolvers[key.name])
            key = dataclasses.replace(
                key, validator=check if key.validator is None else composite(key.validator, check)
            )
        keys.append(key)
    keys.extend(_alias_keys(_TRANSFORMS, config, registry))
    keys.extend(_alias_keys(_PREDICATES, config, registry))
    return ConfigDef(keys)
