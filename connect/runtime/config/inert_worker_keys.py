"""Kafka Connect worker keys that kconnect accepts, so an existing worker.properties starts unchanged, but
that have no effect here. Each one given is named in a start-up warning with the reason, so no key is
silently ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

log = logging.getLogger(__name__)

_JAVA_METRICS = "kconnect's metrics are served by /metrics in Prometheus' format; Java metric settings do not apply"
INERT_KEYS: Mapping[str, str] = {
    "plugin.path": (
        "kconnect finds plug-ins through Python entry points, so install a plug-in's package into the worker's "
        "Python environment instead"
    ),
    "plugin.discovery": "kconnect finds plug-ins through Python entry points only (Kafka's service_load)",
    "metric.reporters": _JAVA_METRICS,
    "metrics.recording.level": _JAVA_METRICS,
}


def warn_inert_keys(props: Mapping[str, str]) -> list[str]:
    """Warn about each inert key present in `props`; returns the keys warned about."""
    present = [key for key in INERT_KEYS if key in props]
    for key in present:
        log.warning("%s is ignored: %s", key, INERT_KEYS[key])
    return present
