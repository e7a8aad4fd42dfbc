"""Kafka Connect's logical types between their Python values and their wire encodings.

Decimal <-> big-endian two's-complement unscaled bytes (or a JSON number), Date <-> days since the
epoch, Time <-> milliseconds since midnight, Timestamp <-> epoch milliseconds. On the Connect side
the values are `decimal.Decimal`, `datetime.date`, `datetime.time` and UTC `datetime.datetime`;
plain ints are accepted too, for sources that already hold the encoded form. Pure functions, any thread.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from connect.api.data import DATE_NAME, DECIMAL_SCALE_PARAM, TIME_NAME, TIMESTAMP_NAME, Schema
from connect.api.errors import DataError

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH_DATE = dt.date(1970, 1, 1)
_MS = dt.timedelta(milliseconds=1)
MS_PER_DAY = 86_400_000


def decimal_scale(schema: Schema) -> int:
    params = schema.parameters or {}
    try:
        return int(params[DECIMAL_SCALE_PARAM])
    except (KeyError, ValueError):
        raise DataError("Invalid Decimal schema: scale parameter not found.") from None


def unscaled(value: Decimal, scale: int) -> int:
    """The unscaled integer of `value` at `scale`; DataError if that would lose digits."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise DataError(f"Cannot encode non-finite Decimal {value}")
    shift = exponent + scale
    number: int = int("".join(map(str, digits)) or "0")
    if shift >= 0:
        number *= 10**shift
    else:
        number, remainder = divmod(number, 10**-shift)
        if remainder:
            raise DataError("Decimal value has mismatching scale for given Decimal schema")
    return -number if sign else number


def decimal_to_bytes(value: Any, scale: int) -> bytes:
    if not isinstance(value, Decimal):
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = Decimal(str(value))
        else:
            raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(value).__name__}")
    number = unscaled(value, scale)
    length = (number if number >= 0 else ~number).bit_length() // 8 + 1
    return number.to_bytes(length, "big", signed=True)


def decimal_from_bytes(data: bytes, scale: int) -> Decimal:
    number = int.from_bytes(data, "big", signed=True)
    digits = tuple(int(c) for c in str(abs(number)))
    return Decimal((1 if number < 0 else 0, digits, -scale))


def date_to_days(value: Any) -> int:
    if isinstance(value, dt.datetime):
        if value.timetz().replace(tzinfo=None) != dt.time(0):
            raise DataError("Kafka Connect Date type should not have any time fields set to non-zero values.")
        value = value.date()
    if isinstance(value, dt.date):
        return (value - EPOCH_DATE).days
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DataError(f"Invalid type for Date, expected date but was {type(value).__name__}")


def days_to_date(days: int) -> dt.date:
    return EPOCH_DATE + dt.timedelta(days=days)


def time_to_millis(value: Any) -> int:
    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.UTC).time() if value.tzinfo else value.time()
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DataError(f"Invalid type for Time, expected time but was {type(value).__name__}")


def millis_to_time(millis: int) -> dt.time:
    if not 0 <= millis < MS_PER_DAY:
        raise DataError("Kafka Connect Time type should not have any date fields set to non-zero values.")
    seconds, ms = divmod(millis, 1000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return dt.time(hour, minute, second, ms * 1000)


def timestamp_to_millis(value: Any) -> int:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return int((value - EPOCH) // _MS)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dt.date):
        return (value - EPOCH_DATE).days * MS_PER_DAY
    raise DataError(f"Invalid type for Timestamp, expected datetime but was {type(value).__name__}")


def millis_to_timestamp(millis: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=millis)


TO_NUMBER: dict[str, Callable[[Any], int]] = {
    DATE_NAME: date_to_days,
    TIME_NAME: time_to_millis,
    TIMESTAMP_NAME: timestamp_to_millis,
}
"""The encoders of the logical types written as numbers (Date, Time, Timestamp), by schema name."""
