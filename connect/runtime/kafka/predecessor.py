"""A sink task's consumer evicts the consumer of the task's previous instance before it joins its group.

When a worker dies (kill -9, a crash, a lost machine), its sink tasks' consumers stay members of their
groups until their sessions expire; until then their partitions are assigned to nobody, and the group
cannot finish the rebalance the task's new instance asks for. The new instance knows who its predecessor
was: the member with the task's own client id (`connector-consumer-<connector>-<task>`, Kafka Connect's),
since one task runs in one place at a time. Evicting it (`group_eviction.py`) lets the group rebalance at
once. If the predecessor was alive after all (a zombie), the eviction fences it as a session expiry would:
its offset commits are refused from then on.

Never fails the task: if the coordinator cannot be asked, the group waits out the session as before.
"""

from __future__ import annotations

import logging

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka.group_eviction import GroupEviction

log = logging.getLogger(__name__)


def sink_client_id(task: ConnectorTaskId) -> str:
    """Kafka Connect's client id of a sink task's consumer."""
    return f"connector-consumer-{task.connector}-{task.task}"


def evict_predecessor(eviction: GroupEviction, group: str, client_id: str) -> None:
    try:
        evicted = eviction.evict(group, lambda member: member.client_id == client_id)
    except Exception as exc:  # the coordinator gone, an answer not understood: never the task's failure
        log.info(
            "Could not look for a previous consumer %s in group %s (%s): it leaves at its session timeout",
            client_id,
            group,
            exc,
        )
        return
    for member in evicted:
        log.info(
            "Evicted member %s of group %s, the consumer of this task's previous instance: its partitions "
            "move now instead of at its session timeout",
            member.member_id,
            group,
        )
