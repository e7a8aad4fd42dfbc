"""Built-in converters: JSON, string, bytes, numbers, and the simple header converter."""

from connect.runtime.converters.header import SimpleHeaderConverter
from connect.runtime.converters.json import JsonConverter
from connect.runtime.converters.number import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)
from connect.runtime.converters.simple import ByteArrayConverter, StringConverter

__all__ = [
    "BooleanConverter",
    "ByteArrayConverter",
    "DoubleConverter",
    "FloatConverter",
    "IntegerConverter",
    "JsonConverter",
    "LongConverter",
    "ShortConverter",
    "SimpleHeaderConverter",
    "StringConverter",
]
