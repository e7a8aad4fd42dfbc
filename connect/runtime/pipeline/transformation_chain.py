"""The transformation chain of one task, built from the connector config's `transforms`/`predicates` keys.

Built on the task's thread when the task starts and used only by it. `transform_config_defs` and
`predicate_config_defs` expose each alias's resolved plug-in and ConfigDef to config validation.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connect.api.config import ConfigDef, ConfigType, parse_value
from connect.api.errors import ConfigError, NotFoundError
from connect.api.transform import Predicate, R, Transformation
from connect.runtime.domain.info import PluginType
from connect.runtime.plugins import PluginDesc, PluginRegistry

log = logging.getLogger(__name__)

TRANSFORMS_CONFIG = "transforms"
PREDICATES_CONFIG = "predicates"
TYPE_SUFFIX = "type"
PREDICATE_SUFFIX = "predicate"
NEGATE_SUFFIX = "negate"
_LIST_SPLIT = re.compile(r"\s*,\s*")


@dataclass(frozen=True)
class AliasPlugin:
    """One alias of `transforms` or `predicates` with what it resolved to.

    `config_def` is the plug-in's own definition (keys without `prefix`); `error` says why the alias's
    `type` could not be resolved, in which case `desc` and `config_def` are None.
    """

    alias: str
    prefix: str
    type_name: str | None
    desc: PluginDesc | None
    config_def: ConfigDef | None
    error: str | None = None


def aliases(config: Mapping[str, str], key: str) -> list[str]:
    """The aliases listed under `key` (`transforms` or `predicates`); ConfigError on duplicates."""
    raw = str(config.get(key) or "").strip()
    names = [a for a in _LIST_SPLIT.split(raw) if a] if raw else []
    if len(set(names)) != len(names):
        raise ConfigError(f"Invalid value {raw} for configuration {key}: Duplicate alias provided.")
    return names


def transform_config_defs(config: Mapping[str, str], registry: PluginRegistry) -> list[AliasPlugin]:
    return _alias_plugins(config, registry, TRANSFORMS_CONFIG, PluginType.TRANSFORMATION, "Transformation")


def predicate_config_defs(config: Mapping[str, str], registry: PluginRegistry) -> list[AliasPlugin]:
    return _alias_plugins(config, registry, PREDICATES_CONFIG, PluginType.PREDICATE, "Predicate")


def _alias_plugins(
    config: Mapping[str, str], registry: PluginRegistry, key: str, ptype: PluginType, what: str
) -> list[AliasPlugin]:
    result = []
    for alias in aliases(config, key):
        prefix = f"{key}.{alias}."
        type_key = prefix + TYPE_SUFFIX
        type_name = config.get(type_key)
        if type_name is None or not str(type_name).strip():
            error = f'Missing required configuration "{type_key}" which has no default value.'
            result.append(AliasPlugin(alias, prefix, None, None, None, error))
            continue
        type_name = str(type_name).strip()
        try:
            desc = registry.find(type_name, ptype)
        except NotFoundError:
            error = _type_error(registry, type_name, type_key, what)
            result.append(AliasPlugin(alias, prefix, type_name, None, None, error))
            continue
        except ConfigError as exc:
            result.append(
                AliasPlugin(
                    alias,
                    prefix,
                    type_name,
                    None,
                    None,
                    f"Invalid value {type_name} for configuration {type_key}: {exc}",
                )
            )
            continue
        try:
            definition = desc.cls().config()
        except Exception as exc:
            error = f"Invalid value {type_name} for configuration {type_key}: could not read its config: {exc}"
            result.append(AliasPlugin(alias, prefix, type_name, desc, None, error))
            continue
        result.append(AliasPlugin(alias, prefix, type_name, desc, definition))
    return result


def _type_error(registry: PluginRegistry, type_name: str, type_key: str, what: str) -> str:
    try:
        registry.find(type_name)
    except (NotFoundError, ConfigError):
        return f"Invalid value {type_name} for configuration {type_key}: Class {type_name} could not be found."
    return f"Invalid value {type_name} for configuration {type_key}: Not a {what}"


def _sub_config(config: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def _prefixed(message: str, prefix: str, names: Iterable[str]) -> str:
    """A ConfigDef error about an unprefixed key, rewritten to name the full connector config key."""
    for name in names:
        message = message.replace(f'"{name}"', f'"{prefix}{name}"')
        message = message.replace(f"configuration {name}:", f"configuration {prefix}{name}:")
    return message


def _configure(plugin: AliasPlugin, config: Mapping[str, str], what: str) -> Any:
    if plugin.error is not None or plugin.desc is None or plugin.config_def is None:
        raise ConfigError(plugin.error or f"Invalid {what} {plugin.alias}")
    sub = _sub_config(config, plugin.prefix)
    for result in plugin.config_def.validate(sub):
        if result.error_messages:
            raise ConfigError(_prefixed(result.error_messages[0], plugin.prefix, plugin.config_def.names()))
    instance = plugin.desc.cls()
    try:
        instance.configure(sub)
    except ConfigError as exc:
        raise ConfigError(
            f"Invalid configuration for {what} {plugin.alias} ({plugin.prefix}*): "
            + _prefixed(str(exc), plugin.prefix, plugin.config_def.names())
        ) from exc
    return instance


@dataclass(frozen=True)
class _Stage:
    alias: str
    transform: Transformation[Any]
    predicate: Predicate[Any] | None
    negate: bool


class TransformationChain:
    """The configured SMTs in order, each gated by its predicate (xor `negate`)."""

    def __init__(self, stages: Sequence[_Stage] = (), predicates: Mapping[str, Predicate[Any]] | None = None) -> None:
        self._stages = tuple(stages)
        self._predicates = dict(predicates or {})

    @classmethod
    def from_config(cls, config: Mapping[str, str], registry: PluginRegistry) -> TransformationChain:
        """The chain a connector config describes; ConfigError naming the alias and key when it is invalid."""
        predicates: dict[str, Predicate[Any]] = {}
        stages: list[_Stage] = []
        try:
            for plugin in predicate_config_defs(config, registry):
                predicates[plugin.alias] = _configure(plugin, config, "predicate")
            for plugin in transform_config_defs(config, registry):
                transform = _configure(plugin, config, "transformation")
                stages.append(_Stage(plugin.alias, transform, None, False))
                stages[-1] = _stage_with_predicate(stages[-1], plugin.prefix, config, predicates)
        except BaseException:
            TransformationChain(stages, predicates).close()
            raise
        return cls(stages, predicates)

    @property
    def aliases(self) -> list[str]:
        return [s.alias for s in self._stages]

    def __len__(self) -> int:
        return len(self._stages)

    def apply(self, record: R) -> R | None:
        """The transformed record, or None if a transform dropped it."""
        result: Any = record
        for stage in self._stages:
            if stage.predicate is not None and stage.predicate.test(result) == stage.negate:
                continue
            result = stage.transform.apply(result)
            if result is None:
                return None
        out: R = result
        return out

    def apply_batch(self, records: list[R]) -> list[R]:
        """The transformed records, dropped ones left out; the same list when the chain is empty."""
        if not self._stages:
            return records
        apply = self.apply
        out = []
        for record in records:
            transformed = apply(record)
            if transformed is not None:
                out.append(transformed)
        return out

    def apply_each(self, records: Sequence[R]) -> list[R | None]:
        """One result per record, None where a transform dropped it (source tasks ack those too)."""
        if not self._stages:
            return list(records)
        apply = self.apply
        return [apply(record) for record in records]

    def close(self) -> None:
        for stage in self._stages:
            _close_quietly(stage.transform, stage.alias)
        for alias, predicate in self._predicates.items():
            _close_quietly(predicate, alias)


def _stage_with_predicate(
    stage: _Stage, prefix: str, config: Mapping[str, str], predicates: Mapping[str, Predicate[Any]]
) -> _Stage:
    predicate_key = prefix + PREDICATE_SUFFIX
    negate_key = prefix + NEGATE_SUFFIX
    negate = bool(parse_value(negate_key, ConfigType.BOOLEAN, config.get(negate_key, "false")))
    predicate_alias = str(config.get(predicate_key) or "").strip()
    if not predicate_alias:
        if negate_key in config:
            raise ConfigError(
                f"Config '{negate_key}' was provided but there is no config '{predicate_key}' "
                "defining a predicate to be negated."
            )
        return stage
    if predicate_alias not in predicates:
        raise ConfigError(
            f"Invalid value {predicate_alias} for configuration {predicate_key}: "
            f'the predicate alias is not listed in "{PREDICATES_CONFIG}"'
        )
    return _Stage(stage.alias, stage.transform, predicates[predicate_alias], negate)


def _close_quietly(plugin: Transformation[Any] | Predicate[Any], alias: str) -> None:
    try:
        plugin.close()
    except Exception:
        log.warning("Closing %s (%s) failed", alias, type(plugin).__name__, exc_info=True)
