"""Plug-in discovery and name resolution (`PluginRegistry`)."""

from connect.runtime.plugins.java_names import JAVA_CLASS_NAMES
from connect.runtime.plugins.registry import ENTRY_POINT_GROUPS, PluginDesc, PluginRegistry, plugin_types

__all__ = ["ENTRY_POINT_GROUPS", "JAVA_CLASS_NAMES", "PluginDesc", "PluginRegistry", "plugin_types"]
