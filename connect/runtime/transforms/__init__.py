"""Kafka Connect's built-in single message transforms and predicates, and the transformation chain."""

from connect.runtime.transforms.cast import Cast, CastKey, CastValue
from connect.runtime.transforms.chain import (
    AliasPlugin,
    TransformationChain,
    predicate_config_defs,
    transform_config_defs,
)
from connect.runtime.transforms.extract_field import ExtractField, ExtractFieldKey, ExtractFieldValue
from connect.runtime.transforms.filter import Filter
from connect.runtime.transforms.flatten import Flatten, FlattenKey, FlattenValue
from connect.runtime.transforms.headers import DropHeaders, HeaderFrom, HeaderFromKey, HeaderFromValue, InsertHeader
from connect.runtime.transforms.hoist_field import HoistField, HoistFieldKey, HoistFieldValue
from connect.runtime.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from connect.runtime.transforms.mask_field import MaskField, MaskFieldKey, MaskFieldValue
from connect.runtime.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connect.runtime.transforms.replace_field import ReplaceField, ReplaceFieldKey, ReplaceFieldValue
from connect.runtime.transforms.routers import RegexRouter, TimestampRouter
from connect.runtime.transforms.set_schema_metadata import (
    SetSchemaMetadata,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
)
from connect.runtime.transforms.timestamp_converter import (
    TimestampConverter,
    TimestampConverterKey,
    TimestampConverterValue,
)
from connect.runtime.transforms.transformer import RecordTransformer
from connect.runtime.transforms.value_to_key import ValueToKey

__all__ = [
    "AliasPlugin",
    "Cast",
    "CastKey",
    "CastValue",
    "DropHeaders",
    "ExtractField",
    "ExtractFieldKey",
    "ExtractFieldValue",
    "Filter",
    "Flatten",
    "FlattenKey",
    "FlattenValue",
    "HasHeaderKey",
    "HeaderFrom",
    "HeaderFromKey",
    "HeaderFromValue",
    "HoistField",
    "HoistFieldKey",
    "HoistFieldValue",
    "InsertField",
    "InsertFieldKey",
    "InsertFieldValue",
    "InsertHeader",
    "MaskField",
    "MaskFieldKey",
    "MaskFieldValue",
    "RecordIsTombstone",
    "RecordTransformer",
    "RegexRouter",
    "ReplaceField",
    "ReplaceFieldKey",
    "ReplaceFieldValue",
    "SetSchemaMetadata",
    "SetSchemaMetadataKey",
    "SetSchemaMetadataValue",
    "TimestampConverter",
    "TimestampConverterKey",
    "TimestampConverterValue",
    "TimestampRouter",
    "TopicNameMatches",
    "TransformationChain",
    "ValueToKey",
    "predicate_config_defs",
    "transform_config_defs",
]
