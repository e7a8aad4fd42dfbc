"""Fail-back translation (`mirror_client.upstream_position`): a consumer's position on a remote partition mapped
back to the partition it was mirrored from, with the flow's offset syncs: never ahead of what it read."""

from __future__ import annotations

from connect.mirror.mirror_client import upstream_position
from connect.mirror.records import OffsetSync

# Upstream 0..9 landed at 100..109 (a target partition that already held 100 records), then a gap upstream
# (compaction): upstream 20 landed at 110.
SYNCS = [OffsetSync("orders", 0, 0, 100), OffsetSync("orders", 0, 5, 105), OffsetSync("orders", 0, 20, 110)]


def test_a_consumer_on_a_synced_record_resumes_at_its_upstream_offset() -> None:
    assert upstream_position(SYNCS, 105) == 5
    assert upstream_position(SYNCS, 110) == 20


def test_a_consumer_past_a_synced_record_resumes_just_after_it_never_further() -> None:
    # At 108 it read 105..107: upstream 5 for sure (and more it cannot be sure of: syncs are every few records).
    assert upstream_position(SYNCS, 108) == 6
    # Past the gap's sync: upstream 20 was read; what lies after it upstream is not known.
    assert upstream_position(SYNCS, 115) == 21


def test_a_consumer_before_every_sync_is_not_translated() -> None:
    assert upstream_position(SYNCS, 99) is None
    assert upstream_position([], 5) is None
