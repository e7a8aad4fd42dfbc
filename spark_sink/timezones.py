"""Time zones as Confluent's `timezone` setting names them: zone ids (Europe/Paris, UTC) or fixed offsets.

Also the one place that turns epoch milliseconds into local wall-clock milliseconds, cached per
quarter hour because zone offsets only ever change on quarter-hour boundaries. Any thread.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

_FIXED = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?")
_QUARTER_HOUR_MS = 900_000


def resolve(name: str) -> dt.tzinfo:
    """A tzinfo for a zone id or a fixed offset like +02:00, -0530, UTC+1; ValueError when unknown."""
    name = name.strip()
    if name.upper() in ("UTC", "Z", "GMT"):
        return dt.UTC
    fixed = _FIXED.fullmatch(name)
    if fixed:
        sign, hours, minutes = fixed.groups()
        delta = dt.timedelta(hours=int(hours), minutes=int(minutes or 0))
        if delta > dt.timedelta(hours=18):
            raise ValueError(f"zone offset out of range: {name}")
        return dt.timezone(-delta if sign == "-" else delta)
    if not name or name.startswith(("/", ".")) or ".." in name:
        raise ValueError(f"unknown time zone: {name!r}")
    return zoneinfo.ZoneInfo(name)


class LocalClock:
    """Converts epoch ms to the zone's wall-clock ms (and back, for bucket starts)."""

    def __init__(self, zone: dt.tzinfo) -> None:
        self.zone = zone
        self._offsets: dict[int, int] = {}

    def offset_ms(self, epoch_ms: int) -> int:
        quarter = epoch_ms // _QUARTER_HOUR_MS
        offset = self._offsets.get(quarter)
        if offset is None:
            moment = dt.datetime.fromtimestamp(quarter * _QUARTER_HOUR_MS / 1000, dt.UTC).astimezone(self.zone)
            delta = moment.utcoffset() or dt.timedelta(0)
            offset = int(delta.total_seconds() * 1000)
            if len(self._offsets) > 100_000:
                self._offsets.clear()
            self._offsets[quarter] = offset
        return offset

    def to_local_ms(self, epoch_ms: int) -> int:
        return epoch_ms + self.offset_ms(epoch_ms)

    def start_of_day_ms(self, epoch_ms: int) -> int:
        """The epoch ms of local midnight of the day `epoch_ms` falls in."""
        local = dt.datetime.fromtimestamp(epoch_ms / 1000, dt.UTC).astimezone(self.zone)
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        return int(midnight.timestamp() * 1000)
