"""The plug-in registry: which connectors, converters, transforms and predicates exist, and by what names.

Built once per worker (`PluginRegistry.discover()`, from entry points) and then only read, so any
thread may call it. Names resolve as in Kafka Connect: the full dotted class name, the simple class
name, the simple name without its type suffix (`FileStreamSource` for `FileStreamSourceConnector`,
`Json` for `JsonConverter`), the entry point name, and Kafka Connect's own Java class names for the
plug-ins kconnect ships an equivalent of (`java_names.JAVA_CLASS_NAMES`). A dotted name that nothing
registered is imported as a last resort, as Kafka Connect loads any class on its class path.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from connect.api.connector import UNDEFINED_VERSION, Connector, SinkConnector, SourceConnector
from connect.api.converter import Converter, HeaderConverter
from connect.api.errors import ConfigError, NotFoundError
from connect.api.transform import Predicate, Transformation
from connect.runtime.domain.info import ConnectorType, PluginType
from connect.runtime.domain.moved_modules import current_path
from connect.runtime.plugins.java_names import JAVA_CLASS_NAMES, java_short_names

log = logging.getLogger(__name__)

ENTRY_POINT_GROUPS = (
    "kconnect.connectors",
    "kconnect.converters",
    "kconnect.header_converters",
    "kconnect.transforms",
    "kconnect.predicates",
)

# Base class per plug-in type, in the order a class implementing several is listed.
_BASES: tuple[tuple[PluginType, type], ...] = (
    (PluginType.SOURCE, SourceConnector),
    (PluginType.SINK, SinkConnector),
    (PluginType.CONVERTER, Converter),
    (PluginType.HEADER_CONVERTER, HeaderConverter),
    (PluginType.TRANSFORMATION, Transformation),
    (PluginType.PREDICATE, Predicate),
)
# The suffix Kafka Connect prunes from a simple name to form the short alias.
_SUFFIXES = {
    PluginType.SOURCE: "Connector",
    PluginType.SINK: "Connector",
    PluginType.CONVERTER: "Converter",
    PluginType.HEADER_CONVERTER: "HeaderConverter",
    PluginType.TRANSFORMATION: "Transformation",
    PluginType.PREDICATE: "Predicate",
}
_CONNECTOR_TYPES = (PluginType.SOURCE, PluginType.SINK)


@dataclass(frozen=True)
class PluginDesc:
    """One plug-in of one type (a class that is both a converter and a header converter has two)."""

    class_name: str
    cls: type
    type: PluginType
    version: str | None
    aliases: tuple[str, ...]


def plugin_types(cls: type) -> list[PluginType]:
    """Every plug-in type a class implements, from its base classes."""
    return [ptype for ptype, base in _BASES if isinstance(cls, type) and issubclass(cls, base)]


def class_name_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _version_of(cls: type) -> str | None:
    try:
        version = cls().version()
    except Exception:  # an abstract class or one whose constructor fails: it simply has no version to show
        return None
    return None if version in (None, "", UNDEFINED_VERSION) else str(version)


def describe(cls: type, entry_point_names: Iterable[str] = ()) -> list[PluginDesc]:
    """The descs of `cls` for each type it implements, with every name it answers to."""
    types = plugin_types(cls)
    if not types:
        return []
    version = _version_of(cls)
    simple = cls.__qualname__
    names: list[str] = [simple]
    names.extend(n for n in entry_point_names if n)
    known = set(names)
    names.extend(java for java, ep in JAVA_CLASS_NAMES.items() if ep in known)
    names.extend(short for short, ep in java_short_names().items() if ep in known)
    descs = []
    for ptype in types:
        aliases = list(names)
        suffix = _SUFFIXES[ptype]
        if simple.endswith(suffix) and len(simple) > len(suffix):
            aliases.append(simple[: -len(suffix)])
        unique = tuple(dict.fromkeys(a for a in aliases if a != class_name_of(cls)))
        descs.append(PluginDesc(class_name_of(cls), cls, ptype, version, unique))
    return descs


class PluginRegistry:
    """Plug-ins by name. Immutable after construction, except that imported dotted names are remembered."""

    def __init__(self, descs: Iterable[PluginDesc] = ()) -> None:
        self._descs: list[PluginDesc] = []
        self._by_name: dict[str, list[PluginDesc]] = {}
        # `connector_type` answers by name, remembered: REST asks it for every connector of every
        # `GET /connectors?expand=...`, and resolving a name sorts and de-duplicates candidates each time.
        self._connector_types: dict[str, ConnectorType] = {}
        # Counts the plug-ins added after construction (imported dotted names): a name may resolve
        # differently after one, so whoever kept an answer built from names can tell it is out of date.
        self.generation = 0
        for desc in descs:
            self._add(desc)

    def _add(self, desc: PluginDesc) -> None:
        if any(d.cls is desc.cls and d.type is desc.type for d in self._descs):
            return
        self._descs.append(desc)
        for name in (desc.class_name, *desc.aliases):
            self._by_name.setdefault(name, []).append(desc)
        # A new plug-in can make a name resolve differently (or become ambiguous): forget the answers. A new
        # dict rather than clear(), so a lookup that raced with this addition stores into the old one.
        self._connector_types = {}
        self.generation += 1

    @classmethod
    def discover(cls) -> PluginRegistry:
        """Every plug-in installed under kconnect's entry point groups; broken entry points are skipped."""
        names_by_class: dict[type, list[str]] = {}
        for group in ENTRY_POINT_GROUPS:
            for ep in importlib.metadata.entry_points(group=group):
                try:
                    loaded = ep.load()
                except Exception:
                    log.warning(
                        "Skipping plug-in entry point %s = %s (group %s): it failed to load",
                        ep.name,
                        ep.value,
                        group,
                        exc_info=True,
                    )
                    continue
                if not isinstance(loaded, type) or not plugin_types(loaded):
                    log.warning(
                        "Skipping entry point %s = %s (group %s): not a plug-in class", ep.name, ep.value, group
                    )
                    continue
                names_by_class.setdefault(loaded, []).append(ep.name)
        descs = [desc for plugin, names in names_by_class.items() for desc in describe(plugin, names)]
        return cls(descs)

    @classmethod
    def of(cls, *classes: type) -> PluginRegistry:
        """A registry of exactly these classes (for tests); types come from their base classes."""
        return cls(desc for c in classes for desc in describe(c))

    def plugins(self, *types: PluginType) -> list[PluginDesc]:
        """All plug-ins of the given types (all types if none), sorted by class name."""
        chosen = [d for d in self._descs if not types or d.type in types]
        return sorted(chosen, key=lambda d: (d.class_name, d.type.value))

    def find(self, name: str, *types: PluginType) -> PluginDesc:
        """The plug-in `name` resolves to among `types` (any type if none).

        Raises NotFoundError if nothing matches and ConfigError if the name is ambiguous.
        """
        name = name.strip()
        matches = self._matches(name, types)
        if not matches and name in JAVA_CLASS_NAMES:
            matches = self._matches(JAVA_CLASS_NAMES[name], types)
        if not matches and "." in name:
            matches = [d for d in self._import(name) if not types or d.type in types]
        classes = list(dict.fromkeys(d.cls for d in matches))
        if not classes:
            raise NotFoundError(f"Could not find a plug-in named {name}")
        if len(classes) > 1:
            listed = ", ".join(sorted(class_name_of(c) for c in classes))
            raise ConfigError(f"Plug-in name {name} is ambiguous, it matches: {listed}. Use the full class name.")
        return matches[0]

    def _matches(self, name: str, types: tuple[PluginType, ...]) -> list[PluginDesc]:
        found = self._by_name.get(name, [])
        if types:
            order = {t: i for i, t in enumerate(types)}
            found = sorted((d for d in found if d.type in order), key=lambda d: order[d.type])
        return found

    def _import(self, dotted: str) -> list[PluginDesc]:
        module_name, _, attr = current_path(dotted).rpartition(".")
        try:
            loaded: Any = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError, ValueError):
            return []
        if not isinstance(loaded, type):
            return []
        descs = describe(loaded)
        for desc in descs:
            self._add(desc)
        return descs

    def _class(self, name: str, types: tuple[PluginType, ...], what: str, listing: str) -> type:
        try:
            return self.find(name, *types).cls
        except NotFoundError:
            available = ", ".join(dict.fromkeys(d.class_name for d in self.plugins(*types)))
            raise ConfigError(
                f"Failed to find any class that implements {what} and which name matches {name}, "
                f"available {listing} are: {available}"
            ) from None

    def connector_class(self, name: str) -> type[Connector]:
        cls: type[Connector] = self._class(name, _CONNECTOR_TYPES, "Connector", "connectors")
        return cls

    def converter_class(self, name: str) -> type[Converter]:
        cls: type[Converter] = self._class(name, (PluginType.CONVERTER,), "Converter", "converters")
        return cls

    def header_converter_class(self, name: str) -> type[HeaderConverter]:
        cls: type[HeaderConverter] = self._class(
            name, (PluginType.HEADER_CONVERTER,), "HeaderConverter", "header converters"
        )
        return cls

    def transformation_class(self, name: str) -> type[Transformation[Any]]:
        cls: type[Transformation[Any]] = self._class(
            name, (PluginType.TRANSFORMATION,), "Transformation", "transformations"
        )
        return cls

    def predicate_class(self, name: str) -> type[Predicate[Any]]:
        cls: type[Predicate[Any]] = self._class(name, (PluginType.PREDICATE,), "Predicate", "predicates")
        return cls

    def connector_type(self, name: str) -> ConnectorType:
        """SOURCE or SINK for a connector name, UNKNOWN when it resolves to no connector."""
        known = self._connector_types
        found = known.get(name)
        if found is None:
            found = known[name] = self._resolve_connector_type(name)
        return found

    def _resolve_connector_type(self, name: str) -> ConnectorType:
        try:
            desc = self.find(name, *_CONNECTOR_TYPES)
        except (NotFoundError, ConfigError):
            return ConnectorType.UNKNOWN
        return ConnectorType.SOURCE if desc.type is PluginType.SOURCE else ConnectorType.SINK
