"""`ConfigReloads`: restarts a connector when a value its config got from a provider with a TTL changes.

Kafka schedules a restart when the TTL runs out, whether or not the value changed
(`WorkerConfigTransformer.scheduleReload`). Here the raw config is resolved again at that moment and the
connector (with its tasks) is restarted only if some resolved value differs; otherwise the check is
rescheduled at the new TTL. Only for connectors whose `config.action.reload` is `restart` (the default).
Checks run on one daemon timer thread per watched connector; `on_change(name)` is the herder's restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

from connect.runtime.config.providers.config_transformer import ConfigTransformer, Resolved

log = logging.getLogger(__name__)

RELOAD_ACTION = "config.action.reload"


class ConfigReloads:
    def __init__(self, transformer: ConfigTransformer, on_change: Callable[[str], None]) -> None:
        self._transformer = transformer
        self._on_change = on_change
        self._lock = threading.Lock()
        self._timers: dict[str, threading.Timer] = {}

    def watch(self, name: str, raw_config: Mapping[str, str], resolved: Resolved) -> None:
        """Schedule a check of `name` at the smallest TTL `resolved` carries (replacing any pending one)."""
        self.forget(name)
        ttl = resolved.min_ttl_ms
        if ttl is None or raw_config.get(RELOAD_ACTION, "restart").strip().lower() != "restart":
            return
        timer = threading.Timer(ttl / 1000, self._check, args=(name, dict(raw_config), resolved.config))
        timer.name = f"config-reload-{name}"
        timer.daemon = True
        with self._lock:
            self._timers[name] = timer
        timer.start()

    def forget(self, name: str) -> None:
        with self._lock:
            timer = self._timers.pop(name, None)
        if timer is not None:
            timer.cancel()

    def close(self) -> None:
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()

    def _check(self, name: str, raw_config: dict[str, str], previous: dict[str, str]) -> None:
        with self._lock:
            if self._timers.get(name) is not threading.current_thread():
                return  # forgotten or replaced meanwhile
        try:
            current = self._transformer.transform(raw_config)
        except Exception:
            log.exception("Connector %s: could not resolve its config again; its current values stay", name)
            return
        if current.config != previous:
            log.info("Connector %s: a value from a config provider changed; restarting it and its tasks", name)
            with self._lock:
                self._timers.pop(name, None)
            self._on_change(name)
        else:
            self.watch(name, raw_config, current)
