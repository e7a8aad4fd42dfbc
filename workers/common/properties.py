"""Java `.properties` files and connector config files, read the way Kafka's connect-standalone reads them.

`parse_properties` and `read_properties` (`connect.runtime.config.java_properties`) follow
`java.util.Properties.load`.

`load_connector_file` follows `ConnectStandalone.parseConnectorConfigurationFile`: a JSON flat map, else
JSON in the `POST /connectors` shape (`{"name", "config", "initial_state"?}`), else a properties file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connect.api.errors import ConfigError
from connect.runtime.config.java_properties import parse_properties, read_properties
from connect.runtime.domain.states import TargetState

__all__ = ["ConnectorFile", "load_connector_file", "parse_properties", "read_properties"]

NAME_CONFIG = "name"


@dataclass(frozen=True)
class ConnectorFile:
    """A connector to (re)create at start: what `POST /connectors` would carry."""

    name: str
    config: dict[str, str]
    initial_state: TargetState | None = None


def load_connector_file(path: Path | str) -> ConnectorFile:
    """Read one connector config file given to `kconnect standalone`; ConfigError if it is unusable."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"Could not read connector configuration '{path}': {exc.strerror or exc}") from exc
    document = _json_document(raw)
    if isinstance(document, dict):
        flat = _flat_string_map(document)
        if flat is not None:
            return _with_required_name(flat, path)
        if isinstance(document.get("name"), str) and isinstance(document.get("config"), dict):
            return _from_create_request(document, path)
    return _with_required_name(read_properties(path), path)


def _json_document(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _scalar_text(value: Any) -> str | None:
    """A JSON scalar as Jackson would read it into a String (objects, arrays and null are not scalars)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _flat_string_map(document: dict[str, Any]) -> dict[str, str] | None:
    result: dict[str, str] = {}
    for key, value in document.items():
        text = _scalar_text(value)
        if text is None:
            return None
        result[key] = text
    return result


def _with_required_name(config: dict[str, str], path: Path) -> ConnectorFile:
    if NAME_CONFIG not in config:
        raise ConfigError(f"Connector configuration at '{path}' is missing the mandatory '{NAME_CONFIG}' configuration")
    return ConnectorFile(config[NAME_CONFIG], config)


def _from_create_request(document: dict[str, Any], path: Path) -> ConnectorFile:
    name: str = document["name"]
    config = _flat_string_map(document["config"])
    if config is None:
        raise ConfigError(f"Connector configuration at '{path}' has a 'config' whose values are not all strings")
    if NAME_CONFIG in config:
        if config[NAME_CONFIG] != name:
            raise ConfigError(
                f"Connector name configuration in 'config' doesn't match the one specified in 'name' at '{path}'"
            )
    else:
        config[NAME_CONFIG] = name
    initial_state: TargetState | None = None
    raw_state = document.get("initial_state")
    if raw_state is not None:
        try:
            initial_state = TargetState.from_initial_state(str(raw_state))
        except ValueError as exc:
            raise ConfigError(
                f"Connector configuration at '{path}' has an unknown initial_state '{raw_state}' "
                "(expected RUNNING, PAUSED or STOPPED)"
            ) from exc
    return ConnectorFile(name, config, initial_state)
