"""Which REST requests change something, and the audit action each is recorded as."""

from __future__ import annotations

from collections.abc import Mapping

_CONNECTOR = "/connectors/{connector}"

AUDITED_ROUTES: Mapping[tuple[str, str], str] = {
    ("POST", "/connectors"): "connector.create",
    ("PUT", f"{_CONNECTOR}/config"): "connector.update",
    ("PATCH", f"{_CONNECTOR}/config"): "connector.patch",
    ("DELETE", _CONNECTOR): "connector.delete",
    ("PUT", f"{_CONNECTOR}/pause"): "connector.pause",
    ("PUT", f"{_CONNECTOR}/resume"): "connector.resume",
    ("PUT", f"{_CONNECTOR}/stop"): "connector.stop",
    ("POST", f"{_CONNECTOR}/restart"): "connector.restart",
    ("POST", f"{_CONNECTOR}/tasks/{{task}}/restart"): "task.restart",
    ("PATCH", f"{_CONNECTOR}/offsets"): "offsets.alter",
    ("DELETE", f"{_CONNECTOR}/offsets"): "offsets.reset",
    ("PUT", f"{_CONNECTOR}/topics/reset"): "topics.reset",
    ("PUT", "/admin/loggers/{logger}"): "logger.level",
}
# The actions whose record carries the config's diff.
CONFIG_ACTIONS = frozenset({"connector.create", "connector.update", "connector.patch", "connector.delete"})
