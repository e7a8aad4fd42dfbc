"""What a worker does when `liveness.PeerWatcher` sees a peer's process die: evict its membership consumer
from the workers' group, so the group moves the peer's slots in the next rebalance (one membership
heartbeat away) instead of after `session.timeout.ms`."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from connect.runtime.kafka.group_eviction import GroupEviction

log = logging.getLogger(__name__)


class DeadPeerEviction:
    def __init__(self, client_config: Mapping[str, str], group: str) -> None:
        """`client_config`: librdkafka settings of the worker's own clients (bootstrap servers, security)."""
        self._eviction = GroupEviction(client_config, client_id="kconnect-liveness")
        self._group = group
        if not self.supported():
            log.info(
                "A dead worker's slots move at its session timeout: it cannot be evicted, as %s",
                self._eviction.unsupported_reason,
            )

    def supported(self) -> bool:
        return self._eviction.supported()

    def __call__(self, worker: str, client_id: str) -> None:
        try:
            evicted = self._eviction.evict(self._group, lambda member: member.client_id == client_id)
        except Exception as exc:  # the coordinator moving or gone: the session timeout still decides
            log.warning("Could not evict dead worker %s from group %s: %s", worker, self._group, exc)
            return
        if evicted:
            log.warning("Evicted dead worker %s (member %s) from group %s", worker, evicted[0].member_id, self._group)
