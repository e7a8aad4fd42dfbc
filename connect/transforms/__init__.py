"""Kafka Connect's built-in single message transforms and predicates (Kafka's `connect/transforms` module).

Plug-ins like a user's own: found through entry points, importing only `connect.api`. The chain that
builds them from a connector's `transforms` keys is the runtime's (`connect.runtime.pipeline.transformation_chain`).
"""

from connect.transforms.cast import Cast, CastKey, CastValue
from connect.transforms.extract_field import ExtractField, ExtractFieldKey, ExtractFieldValue
from connect.transforms.filter import Filter
from connect.transforms.flatten import Flatten, FlattenKey, FlattenValue
from connect.transforms.headers import DropHeaders, HeaderFrom, HeaderFromKey, HeaderFromValue, InsertHeader
from connect.transforms.hoist_field import HoistField, HoistFieldKey, HoistFieldValue
from connect.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from connect.transforms.mask_field import MaskField, MaskFieldKey, MaskFieldValue
from connect.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connect.transforms.replace_field import ReplaceField, ReplaceFieldKey, ReplaceFieldValue
from connect.transforms.routers import RegexRouter, TimestampRouter
from connect.transforms.set_schema_metadata import (
    SetSchemaMetadata,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
)
from connect.transforms.timestamp_converter import (
    TimestampConverter,
    TimestampConverterKey,
    TimestampConverterValue,
)
from connect.transforms.value_to_key import ValueToKey

__all__ = [
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
    "ValueToKey",
]
