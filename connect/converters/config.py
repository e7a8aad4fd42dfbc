"""Config keys every converter shares, as Kafka's ConverterConfig defines them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, ValidString

TYPE_CONFIG = "converter.type"
ENCODING_CONFIG = "converter.encoding"


class ConverterType(enum.Enum):
    KEY = "key"
    VALUE = "value"
    HEADER = "header"


def converter_config_def() -> ConfigDef:
    """`converter.type`: which part of a record the converter handles (set by the runtime)."""
    return ConfigDef().define(
        TYPE_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        ValidString.in_(*(t.value for t in ConverterType)),
        Importance.LOW,
        "How this converter will be used.",
    )


def with_converter_type(configs: Mapping[str, Any], is_key: bool | None) -> dict[str, Any]:
    """The configs with `converter.type` set from `is_key` (Converter.configure) or defaulted to header."""
    conf = dict(configs)
    if is_key is not None:
        conf[TYPE_CONFIG] = ConverterType.KEY.value if is_key else ConverterType.VALUE.value
    else:
        conf.setdefault(TYPE_CONFIG, ConverterType.HEADER.value)
    return conf
