"""The slots log's records: claims make epochs, and only the current owner of slot 0 places work."""

from __future__ import annotations

from connect.runtime.domain.states import ConnectorTaskId
from workers.distributed.placement import connector_unit
from workers.distributed.slot_log import (
    APPLIED_KEY_PREFIX,
    CLAIM_KEY,
    PLACEMENT_KEY,
    SlotLogState,
    decode_placement,
    encode_applied,
    encode_claim,
    encode_placement,
)

PLACED = {connector_unit("a"): 3, ConnectorTaskId("a", 0): 5, ConnectorTaskId("a", 1): 0, ConnectorTaskId("b", 0): 7}


def test_a_placement_survives_its_encoding() -> None:
    import orjson

    assert decode_placement(orjson.loads(encode_placement(42, PLACED, config_offset=7))) == (42, PLACED, 7)
    # Written before placements carried the config offset they were decided at: none (-1).
    assert decode_placement({"epoch": 42, "connectors": {"a": 3}, "tasks": {}}) == (42, {connector_unit("a"): 3}, -1)


def test_a_claims_offset_is_its_epoch_and_the_latest_claim_wins() -> None:
    state = SlotLogState()
    state.apply(CLAIM_KEY, encode_claim("w1:1", "http://w1:1/"), 4, 10)
    state.apply(CLAIM_KEY, encode_claim("w2:2", "http://w2:2/"), 4, 17)
    # Re-read from a committed position: an older claim never replaces a newer one.
    state.apply(CLAIM_KEY, encode_claim("w1:1", "http://w1:1/"), 4, 10)

    assert (state.claims[4].worker, state.claims[4].epoch, state.claims[4].url) == ("w2:2", 17, "http://w2:2/")


def test_a_placement_from_the_current_owner_of_slot_zero_is_taken() -> None:
    state = SlotLogState()
    state.apply(CLAIM_KEY, encode_claim("w1:1", ""), 0, 3)

    assert state.apply(PLACEMENT_KEY, encode_placement(3, PLACED), 0, 4)
    assert (state.placement.epoch, state.placement.offset, dict(state.placement.slots)) == (3, 4, PLACED)


def test_a_placement_from_a_former_owner_of_slot_zero_is_ignored() -> None:
    state = SlotLogState()
    state.apply(CLAIM_KEY, encode_claim("w1:1", ""), 0, 3)
    state.apply(PLACEMENT_KEY, encode_placement(3, PLACED), 0, 4)
    state.apply(CLAIM_KEY, encode_claim("w2:2", ""), 0, 5)

    zombie = {connector_unit("a"): 9}
    assert not state.apply(PLACEMENT_KEY, encode_placement(3, zombie), 0, 6)
    assert dict(state.placement.slots) == PLACED


def test_a_compacted_log_gives_the_same_state() -> None:
    # Compaction dropped the claim at offset 3: the placement written under it still counts.
    state = SlotLogState()
    state.apply(PLACEMENT_KEY, encode_placement(3, PLACED), 0, 4)
    state.apply(CLAIM_KEY, encode_claim("w2:2", ""), 0, 5)

    assert dict(state.placement.slots) == PLACED
    assert state.claims[0].epoch == 5


def test_a_placement_outside_slot_zero_and_garbage_are_ignored() -> None:
    state = SlotLogState()

    assert not state.apply(PLACEMENT_KEY, encode_placement(0, PLACED), 1, 0)
    assert not state.apply(CLAIM_KEY, b"not json", 2, 0)
    assert not state.apply(b"other", b"{}", 2, 1)
    assert not state.apply(PLACEMENT_KEY, b'{"epoch": "x"}', 0, 2)
    assert state.claims == {} and dict(state.placement.slots) == {}


def test_only_a_change_of_owner_counts_as_a_change_of_ownership() -> None:
    state = SlotLogState()
    state.apply(CLAIM_KEY, encode_claim("w1:1", ""), 1, 0)
    changed_at = state.claims_changed_at
    state.apply(CLAIM_KEY, encode_claim("w1:1", ""), 1, 1)

    assert state.claims_changed_at == changed_at
    state.apply(CLAIM_KEY, encode_claim("w2:2", ""), 1, 2)
    assert state.claims_changed_at > changed_at


def test_each_worker_keeps_the_latest_placement_it_said_it_applied() -> None:
    state = SlotLogState()
    assert state.apply(APPLIED_KEY_PREFIX + b"w1:1", encode_applied("w1:1", 12), 0, 13)
    assert state.apply(APPLIED_KEY_PREFIX + b"w2:2", encode_applied("w2:2", 9), 0, 14)
    # Read again from a committed position: an older word never replaces a newer one, and changes nothing.
    assert not state.apply(APPLIED_KEY_PREFIX + b"w1:1", encode_applied("w1:1", 5), 0, 15)
    # Only in partition 0, beside the placements; malformed values are skipped.
    assert not state.apply(APPLIED_KEY_PREFIX + b"w3:3", encode_applied("w3:3", 40), 2, 1)
    assert not state.apply(APPLIED_KEY_PREFIX + b"w3:3", b'{"worker": "w3:3"}', 0, 16)

    assert state.applied == {"w1:1": 12, "w2:2": 9}
