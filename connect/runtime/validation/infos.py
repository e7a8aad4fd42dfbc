"""From ConfigDef validation results to Kafka Connect's ConfigInfos, and the create-time error message.

Mirrors `AbstractHerder.generateResult`, `prefixedConfigInfos`, `mergeConfigInfos`, `convertConfigKey` and
`convertConfigValue`: values are shown as strings (LIST comma-joined, PASSWORD `[hidden]`), defaults likewise,
and a key without a default is `required` with a null default. Pure functions; any thread may call them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from connect.api.config import ConfigKey, ConfigType, ConfigValue, format_value, parse_value
from connect.api.errors import ConfigError
from connect.runtime.domain.info import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo

_SEE_ALSO = (
    "You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`"
)


def _to_string(value: Any, type_: ConfigType | None) -> str | None:
    if value is None:
        return None
    if type_ is None:
        return str(value)
    return format_value(type_, value)


def _default_string(key: ConfigKey) -> str | None:
    try:
        parsed = parse_value(key.name, key.type, key.default)
    except ConfigError:
        parsed = key.default  # a hand-built ConfigKey with an odd default: show it as it is
    return _to_string(parsed, key.type)


def config_key_info(key: ConfigKey, prefix: str = "") -> ConfigKeyInfo:
    """The REST `definition` of a key; `prefix` is prepended to its name (converter and client settings)."""
    return ConfigKeyInfo(
        name=prefix + key.name,
        type=key.type.value,
        required=key.required,
        default_value=None if key.required else _default_string(key),
        importance=key.importance.value,
        documentation=key.documentation,
        group=key.group,
        order=key.order_in_group,
        width=key.width.value,
        display_name=key.display_name or key.name,
        dependents=list(key.dependents),
    )


def config_value_info(value: ConfigValue, key: ConfigKey | None, name: str | None = None) -> ConfigValueInfo:
    """The REST `value` of a validated key; `key` None when the value has no definition."""
    type_ = None if key is None else key.type
    # Kafka shows LIST recommendations element by element, as strings.
    recommended_type = ConfigType.STRING if type_ is ConfigType.LIST else type_
    return ConfigValueInfo(
        name=value.name if name is None else name,
        value=_to_string(value.value, type_),
        recommended_values=[
            s for s in (_to_string(v, recommended_type) for v in value.recommended_values) if s is not None
        ],
        errors=list(value.error_messages),
        visible=value.visible,
    )


def generate_result(
    connector_class: str, keys: Mapping[str, ConfigKey], values: Sequence[ConfigValue], groups: Sequence[str]
) -> ConfigInfos:
    """One ConfigInfo per defined key (in definition order, with its value if validated), preceded by the
    values that have no definition. `error_count` is the number of error messages, as in Kafka."""
    error_count = 0
    configs: list[ConfigInfo] = []
    by_name: dict[str, ConfigValue] = {}
    for value in values:
        by_name[value.name] = value  # a later value for the same key wins (the connector's over the framework's)
        if value.name not in keys:
            configs.append(ConfigInfo(None, config_value_info(value, None)))
            error_count += len(value.error_messages)
    for name, key in keys.items():
        found = by_name.get(name)
        if found is not None:
            error_count += len(found.error_messages)
        configs.append(ConfigInfo(config_key_info(key), None if found is None else config_value_info(found, key)))
    return ConfigInfos(connector_class, error_count, list(groups), configs)


def prefixed_infos(keys: Mapping[str, ConfigKey], values: Iterable[ConfigValue], prefix: str) -> ConfigInfos:
    """Results of a plug-in or client config validated without its prefix, shown under `prefix`.

    Only validated values appear; `error_count` counts values with errors, as Kafka does for these.
    """
    error_count = 0
    groups: dict[str, None] = {}
    configs: list[ConfigInfo] = []
    for value in values:
        key = keys.get(value.name)
        if key is not None and key.group:
            groups.setdefault(key.group)
        if value.error_messages:
            error_count += 1
        definition = None if key is None else config_key_info(key, prefix)
        configs.append(ConfigInfo(definition, config_value_info(value, key, prefix + value.name)))
    return ConfigInfos("", error_count, list(groups), configs)


def merge_infos(connector_class: str, *parts: ConfigInfos | None) -> ConfigInfos:
    """Concatenate results; groups deduplicated in first-seen order."""
    present = [p for p in parts if p is not None]
    groups = dict.fromkeys(g for p in present for g in p.groups)
    return ConfigInfos(
        connector_class,
        sum(p.error_count for p in present),
        list(groups),
        [c for p in present for c in p.configs],
    )


def invalid_config_message(infos: ConfigInfos) -> str | None:
    """Kafka Connect's 400 message when creating or updating a connector with an invalid config; None if valid."""
    if infos.error_count <= 0:
        return None
    lines = [f"Connector configuration is invalid and contains the following {infos.error_count} error(s):"]
    lines.extend(error for info in infos.configs if info.value is not None for error in info.value.errors)
    lines.append(_SEE_ALSO)
    return "\n".join(lines)
