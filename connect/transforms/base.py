"""Bases of the built-in SMTs, among them those with a `$Key` and a `$Value` variant as Kafka's.

A subclass implements `apply` against `operating_schema`/`operating_value`/`new_record`; the
variants `XKey`/`XValue` only set `IS_KEY`. Instances run on one task thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect.api.config import ConfigDef
from connect.api.data import Schema
from connect.api.transform import Predicate, R, Transformation
from connect.api.version import distribution_version


class BuiltinTransformation(Transformation[R]):
    """A transformation shipped with kconnect: it reports kconnect's version."""

    def version(self) -> str:
        return distribution_version("kconnect")


class BuiltinPredicate(Predicate[R]):
    """A predicate shipped with kconnect: it reports kconnect's version."""

    def version(self) -> str:
        return distribution_version("kconnect")


class KeyValueTransformation(BuiltinTransformation[R]):
    IS_KEY: ClassVar[bool]
    CONFIG_DEF: ClassVar[Any]  # a () -> ConfigDef function

    def config(self) -> ConfigDef:
        definition: ConfigDef = type(self).CONFIG_DEF()
        return definition

    def parse(self, configs: Mapping[str, Any]) -> dict[str, Any]:
        return self.config().parse(configs)

    def operating_schema(self, record: R) -> Schema | None:
        return record.key_schema if self.IS_KEY else record.value_schema

    def operating_value(self, record: R) -> Any:
        return record.key if self.IS_KEY else record.value

    def new_record(self, record: R, schema: Schema | None, value: Any) -> R:
        if self.IS_KEY:
            return record.with_(key_schema=schema, key=value)
        return record.with_(value_schema=schema, value=value)
