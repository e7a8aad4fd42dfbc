"""Gap-less delivery: when a partition's last acknowledged record vouches for every record before it.

librdkafka's idempotent producer with `enable.gapless.guarantee` writes a partition's records once and in
order, and never fails one record of a series alone: a failure that would leave a gap is a fatal error that
fails every record queued after it. Records that time out are the one exception, so the guarantee holds only
where none ever does (`message.timeout.ms` 0, or Kafka Connect's default of Integer.MAX_VALUE ms).

Under it, a source task that takes each record's Kafka offset (`SourceTask.commit_batch`, MirrorMaker's offset
syncs) needs the delivery reports of the first and last records of a run alone: the last one's acknowledgement
proves the run was written, and when the two offsets are as far apart as the run is long, its offsets are every
one between (nothing else was written amid them). A delivery report is a Python call and a message object per
record, the largest cost of mirroring small records after `produce` itself.

Kafka Connect's base producer disables idempotence (Kafka's `Worker.baseProducerConfigs`), so a retried send
there may write a record twice; a producer made gap-less here does not. Turned on only where the user left
idempotence alone and the settings it requires (`acks=all`, at most 5 requests in flight) hold.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from typing import Any

GAPLESS_SETTINGS: Mapping[str, str] = {"enable.idempotence": "true", "enable.gapless.guarantee": "true"}
_USER_DECISIONS = frozenset(GAPLESS_SETTINGS)
_NEVER_TIMES_OUT = frozenset({0, 2**31 - 1})
_MAX_IN_FLIGHT_FOR_IDEMPOTENCE = 5


def with_gapless_delivery(config: Mapping[str, Any], user_keys: Collection[str]) -> dict[str, Any]:
    """`config` (librdkafka's names) made gap-less, unless the user's own settings (`user_keys`) decide on
    idempotence, or the config rules it out (acks other than all, more than 5 requests in flight)."""
    if _USER_DECISIONS & set(user_keys):
        return dict(config)
    if str(config.get("acks", "all")) not in ("all", "-1"):
        return dict(config)
    if int(config.get("max.in.flight.requests.per.connection", 1)) > _MAX_IN_FLIGHT_FOR_IDEMPOTENCE:
        return dict(config)
    return {**config, **GAPLESS_SETTINGS}


def confirms_runs(config: Mapping[str, Any]) -> bool:
    """Whether a producer with `config` acknowledges a record only once every earlier record it was given for
    that partition is written (idempotent, gap-less, and no record ever times out)."""
    return (
        _is_true(config.get("enable.idempotence"))
        and _is_true(config.get("enable.gapless.guarantee"))
        and int(config.get("message.timeout.ms", 300_000)) in _NEVER_TIMES_OUT
    )


def _is_true(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


class ExperimentalWarningFilter(logging.Filter):
    """Drops librdkafka's warning, at every producer made gap-less, that `enable.gapless.guarantee` is
    experimental: the runtime sets it on purpose, and the warning would repeat at every task start."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("CONFWARN" in message and "enable.gapless.guarantee" in message)
