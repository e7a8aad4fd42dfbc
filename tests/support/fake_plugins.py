"""The plug-ins a `FakeHerder` knows: a few connectors with small config definitions, plus other kinds."""

from __future__ import annotations

from dataclasses import dataclass, field

from connect.runtime.domain.info import ConfigKeyInfo, ConnectorType, PluginInfo, PluginType


def config_key(
    name: str, *, required: bool = True, default: str | None = None, group: str | None = None
) -> ConfigKeyInfo:
    return ConfigKeyInfo(
        name=name,
        type="STRING",
        required=required,
        default_value=default,
        importance="HIGH" if required else "LOW",
        documentation=f"The {name}.",
        group=group,
        order=-1,
        width="NONE",
        display_name=name,
        dependents=[],
    )


@dataclass(frozen=True)
class FakePlugin:
    class_name: str
    type: PluginType
    version: str | None = "0.1.0"
    config_keys: tuple[ConfigKeyInfo, ...] = field(default_factory=tuple)

    @property
    def connector_type(self) -> ConnectorType:
        return (
            ConnectorType(self.type.value)
            if self.type in (PluginType.SOURCE, PluginType.SINK)
            else ConnectorType.UNKNOWN
        )

    def info(self) -> PluginInfo:
        return PluginInfo(class_name=self.class_name, type=self.type, version=self.version)

    def matches(self, name: str) -> bool:
        """Kafka resolves a plug-in by full class name, simple class name, or alias (no "Connector")."""
        simple = self.class_name.rsplit(".", 1)[-1]
        alias = simple.removesuffix("Connector")
        return name in (self.class_name, simple, alias)


DEFAULT_PLUGINS: tuple[FakePlugin, ...] = (
    FakePlugin(
        "connectors.file.source.FileStreamSourceConnector",
        PluginType.SOURCE,
        config_keys=(config_key("file", group="File"), config_key("topic", group="File")),
    ),
    FakePlugin(
        "connectors.file.sink.FileStreamSinkConnector",
        PluginType.SINK,
        config_keys=(config_key("file", group="File"), config_key("topics", required=False, default="")),
    ),
    FakePlugin("tests.support.UnversionedSourceConnector", PluginType.SOURCE, version=None),
    FakePlugin("connect.converters.json.JsonConverter", PluginType.CONVERTER),
    FakePlugin("connect.converters.header.SimpleHeaderConverter", PluginType.HEADER_CONVERTER),
    FakePlugin("connect.transforms.InsertField", PluginType.TRANSFORMATION),
    FakePlugin("connect.runtime.predicates.TopicNameMatches", PluginType.PREDICATE),
)
