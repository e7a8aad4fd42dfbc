"""Validation of the settings a connector config passes on to other plug-ins and clients: converter
configs (`key.converter.*`, `value.converter.*`, `header.converter.*`) and client overrides
(`producer.override.*`, `consumer.override.*`, `admin.override.*`).

Mirrors `AbstractHerder.validateConverterConfig` and `validateClientOverrides`: each override the worker's
`connector.client.config.override.policy` forbids gets Kafka's error (`None` forbids all, `Principal` all
but `sasl.jaas.config`, `sasl.mechanism` and `security.protocol`, `All` none); secrets among them are
shown hidden. Called on the validating request's thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from connect.api.config import ConfigDef, ConfigValue, Password
from connect.runtime.config.connector import (
    ADMIN_OVERRIDES_PREFIX,
    CONSUMER_OVERRIDES_PREFIX,
    DLQ_TOPIC_NAME_CONFIG,
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    OFFSETS_TOPIC_CONFIG,
    PRODUCER_OVERRIDES_PREFIX,
    TOPIC_CREATION_PREFIX,
    VALUE_CONVERTER_CLASS_CONFIG,
)
from connect.runtime.domain.info import ConfigInfos, ConnectorType
from connect.runtime.kafka.client_config import PRINCIPAL_OVERRIDES
from connect.runtime.plugins import PluginRegistry
from connect.runtime.validation.infos import merge_infos, prefixed_infos

log = logging.getLogger(__name__)

CONVERTER_TYPE_CONFIG = "converter.type"

# Client settings Kafka types as PASSWORD (and librdkafka's equivalents): shown as [hidden] like Kafka does.
_CLIENT_SECRETS = frozenset(
    {
        "sasl.jaas.config",
        "sasl.password",
        "sasl.oauthbearer.client.secret",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.keystore.key",
        "ssl.key.pem",
        "ssl_key",
    }
)


class _ConfigurablePlugin(Protocol):
    def config(self) -> ConfigDef: ...

    def close(self) -> None: ...


def _with_prefix(config: Mapping[str, str | None], prefix: str) -> dict[str, str | None]:
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def _validate_converter(
    config: Mapping[str, str | None],
    class_value: ConfigValue | None,
    class_key: str,
    converter_type: str,
    resolve: Callable[[str], type[_ConfigurablePlugin]],
) -> ConfigInfos | None:
    """The converter's own settings validated by its ConfigDef, or None when there is nothing to validate.

    Problems loading the converter become errors on its class key (`class_value`).
    """
    class_name = config.get(class_key)
    if class_name is None or class_value is None or class_value.error_messages:
        return None  # inherited from the worker, or the class itself is already reported as wrong
    what = f"{converter_type} converter"
    try:
        plugin = resolve(class_name.strip())()
    except Exception as exc:  # plug-in code: its constructor may raise anything
        class_value.error_messages.append(f"Failed to load class {class_name}: {exc}")
        return None
    try:
        try:
            definition = plugin.config()
        except Exception as exc:
            class_value.error_messages.append(f"Failed to load ConfigDef from {what}: {exc}")
            return None
        prefix = class_key + "."
        plugin_config = _with_prefix(config, prefix)
        plugin_config.setdefault(CONVERTER_TYPE_CONFIG, converter_type)
        try:
            values = definition.validate(plugin_config)
        except Exception as exc:
            class_value.error_messages.append(f"Failed to perform config validation for {what}: {exc}")
            return None
        return prefixed_infos(definition.keys, values, prefix)
    finally:
        try:
            plugin.close()
        except Exception:  # closing a throw-away instance must not fail the validation
            log.warning("Failed to close the %s %s used for validation", what, class_name, exc_info=True)


def validate_converter_configs(
    config: Mapping[str, str | None], framework_values: Mapping[str, ConfigValue], registry: PluginRegistry
) -> list[ConfigInfos | None]:
    """Header, key and value converter settings, in Kafka's order."""
    return [
        _validate_converter(
            config,
            framework_values.get(class_key),
            class_key,
            converter_type,
            resolve,
        )
        for class_key, converter_type, resolve in (
            (HEADER_CONVERTER_CLASS_CONFIG, "header", registry.header_converter_class),
            (KEY_CONVERTER_CLASS_CONFIG, "key", registry.converter_class),
            (VALUE_CONVERTER_CLASS_CONFIG, "value", registry.converter_class),
        )
    ]


def _is_set(config: Mapping[str, str | None], key: str) -> bool:
    return bool((config.get(key) or "").strip())


def _client_overrides(config: Mapping[str, str | None], prefix: str, policy: str) -> ConfigInfos:
    values: list[ConfigValue] = []
    for name, raw in _with_prefix(config, prefix).items():
        value: Any = Password(raw) if raw is not None and name in _CLIENT_SECRETS else raw
        errors = [] if policy_allows(policy, name) else [policy_error(policy, name)]
        values.append(ConfigValue(name, value, error_messages=errors))
    return prefixed_infos({}, values, prefix)


def policy_allows(policy: str, client_key: str) -> bool:
    """Whether `connector.client.config.override.policy` lets a connector override `client_key`."""
    return policy == "All" or (policy == "Principal" and client_key in PRINCIPAL_OVERRIDES)


def policy_error(policy: str, client_key: str) -> str:
    """Kafka's message; it names the client key without its `*.override.` prefix."""
    return f"The '{policy}' policy does not allow '{client_key}' to be overridden in the connector configuration."


def validate_client_overrides(
    config: Mapping[str, str | None],
    connector_type: ConnectorType,
    exactly_once_source_enabled: bool | None,
    policy: str = "All",
) -> ConfigInfos:
    """Producer, consumer and admin overrides for the clients this connector uses, checked against `policy`
    (`All`, `Principal` or `None`, in Kafka's spelling).

    `exactly_once_source_enabled` is None in standalone mode; in distributed mode a source connector also
    uses a consumer and an admin client for its offsets topic when EOS is on or it has its own offsets topic.
    """
    is_source = connector_type is ConnectorType.SOURCE
    has_dlq = _is_set(config, DLQ_TOPIC_NAME_CONFIG)
    separate_offsets_clients = (
        is_source
        and exactly_once_source_enabled is not None
        and (exactly_once_source_enabled or _is_set(config, OFFSETS_TOPIC_CONFIG))
    )
    uses_producer = is_source or has_dlq
    uses_consumer = not is_source or separate_offsets_clients
    if is_source:
        uses_admin = any(k.startswith(TOPIC_CREATION_PREFIX) for k in config) or separate_offsets_clients
    else:
        uses_admin = has_dlq
    return merge_infos(
        "",
        _client_overrides(config, PRODUCER_OVERRIDES_PREFIX, policy) if uses_producer else None,
        _client_overrides(config, CONSUMER_OVERRIDES_PREFIX, policy) if uses_consumer else None,
        _client_overrides(config, ADMIN_OVERRIDES_PREFIX, policy) if uses_admin else None,
    )
