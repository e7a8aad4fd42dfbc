"""`/connector-plugins`: installed plug-ins, their config definitions, and config validation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from connect.runtime.domain.errors import BadRequestError
from rest.deps import JSON_BODY, HerderDep
from rest.errors import documented
from rest.schemas import ConfigInfos, ConfigKeyInfo, ConnectorConfig, PluginInfo

router = APIRouter(prefix="/connector-plugins", tags=["plugins"], responses=documented(500))

PluginName = Annotated[str, Path(description="Class name, simple class name or alias, with or without 'Connector'")]

_ALIAS_SUFFIX = "Connector"


@router.get("")
def list_plugins(
    herder: HerderDep,
    connectors_only: Annotated[bool, Query(alias="connectorsOnly")] = True,
) -> list[PluginInfo]:
    """Plug-ins installed on this worker: connectors, or every kind with `connectorsOnly=false`."""
    return [PluginInfo.of(plugin) for plugin in herder.connector_plugins(connectors_only)]


@router.get("/{plugin}/config", responses=documented(400, 404))
def get_plugin_config(plugin: PluginName, herder: HerderDep) -> list[ConfigKeyInfo]:
    """The config keys the plug-in accepts."""
    return [ConfigKeyInfo.of(key) for key in herder.connector_plugin_config(plugin)]


@router.put("/{plugin}/config/validate", dependencies=JSON_BODY, responses=documented(400))
def validate_config(plugin: PluginName, config: ConnectorConfig, herder: HerderDep) -> ConfigInfos:
    """Validate a connector config without creating it; 200 even when the config has errors."""
    included = config.get("connector.class")
    if included is None:
        raise BadRequestError(f"Connector config {_java_map_text(config)} contains no connector type")
    if not _same_plugin(included, plugin):
        raise BadRequestError(f"Included connector type {included} does not match request type {plugin}")
    return ConfigInfos.of(herder.validate_connector_config(config))


def _same_plugin(included: str, requested: str) -> bool:
    """Kafka's check (the included class ends with the requested name, both without a trailing
    "Connector"), made symmetric so an alias in the config also matches a full class name in the path."""
    included, requested = _without_suffix(included), _without_suffix(requested)
    return included.endswith(requested) or requested.endswith(included)


def _without_suffix(name: str) -> str:
    if name.endswith(_ALIAS_SUFFIX) and len(name) > len(_ALIAS_SUFFIX):
        return name[: -len(_ALIAS_SUFFIX)]
    return name


def _java_map_text(config: dict[str, str]) -> str:
    # Kafka prints the map with Java's Map.toString; clients match on the words that follow it.
    return "{" + ", ".join(f"{key}={value}" for key, value in config.items()) + "}"
