"""When the balancer publishes: new work at once, balance moves only after ownership has been quiet."""

from __future__ import annotations

from connect.runtime.domain.states import ConnectorTaskId
from workers.distributed.balancer import decide
from workers.distributed.placement import connector_unit, is_balanced, place

SLOTS = 8
TWO = {s: ("w1" if s % 2 == 0 else "w2") for s in range(SLOTS)}
UNITS = [connector_unit("a"), *(ConnectorTaskId("a", i) for i in range(4))]


def test_nothing_is_published_until_every_slot_has_an_owner() -> None:
    partial = {s: w for s, w in TWO.items() if s < SLOTS - 1}

    decision = decide(UNITS, partial, SLOTS, {}, now=100.0, owners_changed_at=0.0, delay=1.0)

    assert decision.placement is None


def test_new_units_are_placed_at_once_even_while_ownership_moves() -> None:
    decision = decide(UNITS, TWO, SLOTS, {}, now=100.0, owners_changed_at=99.9, delay=1.0)

    assert decision.placement is not None and set(decision.placement) == set(UNITS)
    assert is_balanced(decision.placement, TWO)


def test_a_balanced_placement_is_left_alone() -> None:
    current = place(UNITS, TWO, {})

    decision = decide(UNITS, TWO, SLOTS, current, now=100.0, owners_changed_at=0.0, delay=1.0)

    assert decision == decision.__class__(None, None)


def test_balance_moves_wait_for_quiet_ownership() -> None:
    current = place(UNITS, TWO, {})
    joined = {s: ("w3" if s in (0, 1, 2) else w) for s, w in TWO.items()}

    early = decide(UNITS, joined, SLOTS, current, now=100.5, owners_changed_at=100.0, delay=1.0)
    late = decide(UNITS, joined, SLOTS, current, now=101.0, owners_changed_at=100.0, delay=1.0)

    assert early.placement is None and early.retry_at == 101.0
    assert late.placement is not None and is_balanced(late.placement, joined)


def test_while_ownership_moves_new_units_come_but_placed_ones_stay() -> None:
    current = place(UNITS, TWO, {})
    joined = {s: ("w3" if s in (0, 1, 2) else w) for s, w in TWO.items()}
    more = [*UNITS, ConnectorTaskId("a", 4)]

    decision = decide(more, joined, SLOTS, current, now=100.5, owners_changed_at=100.0, delay=1.0)

    assert decision.placement is not None
    assert {u: s for u, s in decision.placement.items() if u in current} == current
    assert ConnectorTaskId("a", 4) in decision.placement
    assert decision.retry_at == 101.0


def test_removed_units_leave_the_placement_at_once() -> None:
    current = place(UNITS, TWO, {})

    decision = decide(UNITS[:3], TWO, SLOTS, current, now=100.5, owners_changed_at=100.0, delay=1.0)

    assert decision.placement is not None and set(decision.placement) == set(UNITS[:3])
