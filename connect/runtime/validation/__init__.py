"""Connector config validation with Kafka Connect's results: `validate_connector_config` gives the
`ConfigInfos` of the validate endpoint (and decides whether a create or update is accepted, with
`invalid_config_message`); `connector_plugin_config` lists a plug-in's settings.

    infos = validate_connector_config(config, registry)
    if (message := invalid_config_message(infos)) is not None:
        raise ConfigError(message)       # 400 with Kafka Connect's text
"""

from connect.runtime.validation.connector import (
    NULL_VALUE_MESSAGE,
    connector_plugin_config,
    validate_connector_config,
)
from connect.runtime.validation.enrich import enriched_config_def
from connect.runtime.validation.infos import (
    config_key_info,
    config_value_info,
    generate_result,
    invalid_config_message,
    merge_infos,
    prefixed_infos,
)

__all__ = [
    "NULL_VALUE_MESSAGE",
    "config_key_info",
    "config_value_info",
    "connector_plugin_config",
    "enriched_config_def",
    "generate_result",
    "invalid_config_message",
    "merge_infos",
    "prefixed_infos",
    "validate_connector_config",
]
