"""Built-in converters: JSON, string, bytes, numbers, and the simple header converter."""

from connect.converters.header import SimpleHeaderConverter
from connect.converters.json import JsonConverter
from connect.converters.number import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)
from connect.converters.simple import ByteArrayConverter, StringConverter

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
