"""Validating a connector config into Kafka Connect's ConfigInfos (`PUT /connector-plugins/{p}/config/validate`,
and before every create or update), and listing a plug-in's settings (`GET /connector-plugins/{p}/config`).

Mirrors `AbstractHerder.validateConnectorConfig`: framework settings for the connector's type enriched with
its transforms and predicates (a source's also with the topic creation keys it uses, which Kafka only checks
once the connector runs: see `connector_config.topic_creation_rules`), the sink topic rules, the connector's own
`validate`, then converter configs and client overrides, merged in Kafka's order. The connector and plug-ins
are throw-away instances that are never started. Runs on the calling (request) thread; may take as long as the
plug-ins' `validate` does.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from connect.api.config import ConfigDef, ConfigKey, ConfigValue
from connect.api.connector import (
    Connector,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SourceConnector,
)
from connect.api.converter import Converter, HeaderConverter
from connect.api.errors import NotFoundError
from connect.api.transform import Predicate, Transformation
from connect.runtime.config.connector import (
    CONNECTOR_CLASS_CONFIG,
    EXACTLY_ONCE_SUPPORT_CONFIG,
    NAME_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
    ExactlyOnceSupportLevel,
    TransactionBoundary,
    common_connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
    topic_creation_config_def,
    validate_sink_topics,
)
from connect.runtime.domain.errors import BadRequestError
from connect.runtime.domain.info import ConfigInfos, ConfigKeyInfo, ConnectorType, PluginType
from connect.runtime.plugins import PluginRegistry
from connect.runtime.validation.enrich import enriched_config_def
from connect.runtime.validation.infos import config_key_info, generate_result, merge_infos
from connect.runtime.validation.plugin_configs import validate_client_overrides, validate_converter_configs

log = logging.getLogger(__name__)

NULL_VALUE_MESSAGE = "Null value can not be supplied as the configuration value."


def _java_map(config: Mapping[str, str | None]) -> str:
    # Kafka prints the map with Java's toString, and clients match on that text.
    return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in config.items()) + "}"


def _add_null_value_errors(config: Mapping[str, str | None], results: dict[str, ConfigValue]) -> None:
    for name, raw in config.items():
        if raw is None:
            result = results.setdefault(name, ConfigValue(name))
            if NULL_VALUE_MESSAGE not in result.error_messages:
                result.error_messages.append(NULL_VALUE_MESSAGE)


def _unexpected(exc: Exception) -> str:
    text = str(exc).strip()
    if text:
        return f"An unexpected error occurred during validation: {text}"
    return "An unexpected error occurred during validation; please see the worker logs for more details."


def _check_exactly_once(
    connector: SourceConnector, config: Mapping[str, str], results: dict[str, ConfigValue], enabled: bool
) -> None:
    """DistributedHerder's preflight checks for `exactly.once.support=required` and `transaction.boundary=connector`."""
    support = results[EXACTLY_ONCE_SUPPORT_CONFIG]
    if not support.error_messages and str(support.value).lower() == ExactlyOnceSupportLevel.REQUIRED.value:
        if not enabled:
            support.error_messages.append("This worker does not have exactly-once source support enabled.")
        try:
            answer = connector.exactly_once_support(config)
        except Exception as exc:  # connector code
            log.exception("Failed while validating connector support for exactly-once semantics")
            support.error_messages.append(_unexpected(exc))
        else:
            if answer is None:
                support.error_messages.append(
                    "The connector does not implement the API required for preflight validation of exactly-once "
                    "source support. Please consult the documentation for the connector to determine whether it "
                    "supports exactly-once semantics, and then consider reconfiguring the connector to use the value "
                    '"requested" for this property (which will disable this preflight check and allow the connector '
                    "to be created)."
                )
            elif answer is not ExactlyOnceSupport.SUPPORTED:
                support.error_messages.append(
                    "The connector does not support exactly-once semantics with the provided configuration."
                )
    boundary = results[TRANSACTION_BOUNDARY_CONFIG]
    if not boundary.error_messages and str(boundary.value).lower() == TransactionBoundary.CONNECTOR.value:
        try:
            can_define = connector.can_define_transaction_boundaries(config)
        except Exception as exc:  # connector code
            log.exception("Failed while validating connector support for defining its own transaction boundaries")
            boundary.error_messages.append(_unexpected(exc))
        else:
            if can_define is not ConnectorTransactionBoundaries.SUPPORTED:
                boundary.error_messages.append(
                    "The connector does not support connector-defined transaction boundaries with the given "
                    "configuration. Please reconfigure it to use a different transaction boundary definition."
                )


def _check_sink_group(results: dict[str, ConfigValue], worker_group_id: str) -> None:
    name = results[NAME_CONFIG]
    if name.value is not None and f"connect-{name.value}" == worker_group_id:
        name.error_messages.append(
            f"Consumer group for sink connector named {name.value} conflicts with Connect worker group "
            f"{worker_group_id}"
        )


def _unresolved_connector(config: Mapping[str, str | None], connector_class: str, problem: str) -> ConfigInfos:
    """The common settings validated, with why the connector could not be loaded on `connector.class`."""
    definition = common_connector_config_def()
    results = {value.name: value for value in definition.validate(config)}
    results[CONNECTOR_CLASS_CONFIG].error_messages.append(problem)
    _add_null_value_errors(config, results)
    return generate_result(connector_class, definition.keys, list(results.values()), definition.groups())


def validate_connector_config(
    config: Mapping[str, str | None],
    registry: PluginRegistry,
    *,
    exactly_once_source_enabled: bool | None = None,
    worker_group_id: str | None = None,
    topic_creation_enabled: bool = True,
    override_policy: str = "All",
) -> ConfigInfos:
    """Every problem with `config`, as Kafka Connect's validate endpoint reports them (never raises for them).

    Raises BadRequestError only when `connector.class` is missing. An unknown connector class is reported
    as an error on `connector.class`. `exactly_once_source_enabled` and `worker_group_id` switch on the
    distributed herder's extra checks: exactly-once source preflight (True/False: whether the worker has EOS
    source support) and the sink consumer group clashing with the worker's group. `topic_creation_enabled`:
    the worker's `topic.creation.enable`; when false, a source's `topic.creation.*` keys are ignored, as the
    worker ignores them. `override_policy`: the worker's `connector.client.config.override.policy`.
    """
    connector_class = config.get(CONNECTOR_CLASS_CONFIG)
    if connector_class is None:
        raise BadRequestError(f"Connector config {_java_map(config)} contains no connector type")
    try:
        connector = registry.connector_class(connector_class)()
    except Exception as exc:  # unknown name, or a constructor (connector code) that raised
        log.info("Cannot validate connector config: connector class %s did not load: %s", connector_class, exc)
        return _unresolved_connector(config, connector_class, str(exc))
    # Values may be None (JSON null); every ConfigDef.validate reports those instead of parsing them.
    props = cast(Mapping[str, str], config)

    connector_type = ConnectorType.SOURCE if isinstance(connector, SourceConnector) else ConnectorType.SINK
    if connector_type is ConnectorType.SOURCE:
        base = source_connector_config_def()
        if topic_creation_enabled:
            base = base.merged(topic_creation_config_def(config))
    else:
        base = sink_connector_config_def()
    enriched = enriched_config_def(base, config, registry)
    results = {value.name: value for value in enriched.validate(config)}
    if isinstance(connector, SourceConnector):
        if exactly_once_source_enabled is not None:
            _check_exactly_once(connector, props, results, exactly_once_source_enabled)
    else:
        validate_sink_topics(config, results)
        if worker_group_id is not None:
            _check_sink_group(results, worker_group_id)
    _add_null_value_errors(config, results)
    converter_infos = validate_converter_configs(config, results, registry)

    own_definition = connector.config()
    keys: dict[str, ConfigKey] = dict(enriched.keys)
    keys.update(own_definition.keys)
    groups = list(dict.fromkeys([*enriched.groups(), *own_definition.groups()]))
    values = [*results.values(), *connector.validate(props)]
    return merge_infos(
        connector_class,
        generate_result(connector_class, keys, values, groups),
        validate_client_overrides(config, connector_type, exactly_once_source_enabled, override_policy),
        *converter_infos,
    )


def _own_config_def(plugin: Any) -> ConfigDef:
    if isinstance(plugin, Connector | Converter | HeaderConverter | Transformation | Predicate):
        return plugin.config()
    raise BadRequestError(
        f"Invalid plugin class {type(plugin).__name__}. "
        "Valid types are sink, source, converter, header_converter, transformation, predicate."
    )


def connector_plugin_config(plugin: str, registry: PluginRegistry) -> list[ConfigKeyInfo]:
    """`GET /connector-plugins/{plugin}/config`: a connector's own settings then the framework's (its own win);
    a converter's, transformation's or predicate's own settings. NotFoundError "Unknown plugin {plugin}."."""
    try:
        desc = registry.find(plugin)
    except NotFoundError:
        raise NotFoundError(f"Unknown plugin {plugin}.") from None
    keys = dict(_own_config_def(desc.cls()).keys)
    if desc.type is PluginType.SOURCE or desc.type is PluginType.SINK:
        framework = source_connector_config_def() if desc.type is PluginType.SOURCE else sink_connector_config_def()
        for name, key in framework.keys.items():
            keys.setdefault(name, key)
    return [config_key_info(key) for key in keys.values()]
