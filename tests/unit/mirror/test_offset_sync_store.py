"""Offset translation never runs ahead, keeps history by powers of two, and forgets it on an upstream rewind,
with the figures of Java's `OffsetSyncStoreTest`."""

from __future__ import annotations

from connect.mirror.offset_sync_store import SYNCS_PER_PARTITION, OffsetSyncStore
from connect.mirror.records import OffsetSync

TOPIC, PARTITION = "topic1", 2


def sync(store: OffsetSyncStore, upstream: int, downstream: int) -> None:
    store.handle(OffsetSync(TOPIC, PARTITION, upstream, downstream))


def translate(store: OffsetSyncStore, upstream: int) -> int | None:
    return store.translate_downstream(TOPIC, PARTITION, upstream)


def assert_invariants(store: OffsetSyncStore) -> None:
    """Java's `assertSparseSyncInvariant`: C and B hold between the kept slots of distinct upstream offsets
    (bounds that overflow a Java long are skipped, as there)."""
    syncs = store._syncs[(TOPIC, PARTITION)]
    assert len(syncs) == SYNCS_PER_PARTITION
    for j in range(SYNCS_PER_PARTITION):
        for i in range(j):
            i_up, j_up = syncs[i].upstream_offset, syncs[j].upstream_offset
            if i_up == j_up:
                continue
            lower = j_up + (1 << max(i - 2, 0))
            if lower >= 1 << 63:
                continue
            assert i_up >= lower, f"C({i},{j})"
            upper = j_up + (1 << j) - (1 << i)
            if upper >= 1 << 63:
                continue
            assert i_up <= upper, f"B({i},{j})"


def test_translation_is_exact_at_a_sync_one_past_it_beyond_and_minus_one_before_every_sync() -> None:
    store = OffsetSyncStore()
    store.read_to_end_done()
    sync(store, 100, 200)
    assert translate(store, 150) == 201  # records after a sync may be missing: never guess further
    sync(store, 150, 251)
    assert translate(store, 150) == 251
    assert translate(store, 5) == -1
    sync(store, 200, 10)  # downstream reset
    assert translate(store, 200) == 10
    sync(store, 20, 20)  # upstream rewind: the older syncs no longer apply
    assert translate(store, 20) == 20


def test_nothing_is_translated_before_the_first_read_to_the_end_nor_without_syncs() -> None:
    store = OffsetSyncStore()
    sync(store, 100, 200)
    assert translate(store, 150) is None
    store.read_to_end_done()
    assert translate(store, 150) == 201
    assert store.translate_downstream("other", 0, 150) is None


def test_history_after_a_startup_that_keeps_only_the_last_sync() -> None:
    store = OffsetSyncStore(initialization_must_read_to_end=True)
    for offset in range(0, 1001, 10):
        sync(store, offset, offset)
        assert_invariants(store)
    store.read_to_end_done()
    assert translate(store, 999) == -1
    assert translate(store, 1000) == 1000

    for offset in range(1010, 10001, 10):
        sync(store, offset, offset)
        assert_invariants(store)

    kept = [s.upstream_offset for s in store.kept(TOPIC, PARTITION)]
    assert kept == [10000, 9990, 9970, 9940, 9880, 9640, 9160, 8680, 6760, 4840, 1000]
    assert translate(store, 999) == -1
    assert translate(store, 1000) == 1000
    assert translate(store, 1002) == 1001
    assert translate(store, 4839) == 1001  # old offsets re-read more: about 3,800 records here
    assert translate(store, 9999) == 9991

    sync(store, 1500, 11000)  # an upstream rewind clears the history
    assert_invariants(store)
    assert translate(store, 1499) == -1
    assert translate(store, 1500) == 11000
    assert translate(store, 2000) == 11001


def test_a_startup_that_may_keep_history_translates_older_offsets() -> None:
    store = OffsetSyncStore(initialization_must_read_to_end=False)
    for offset in range(0, 1001, 10):
        sync(store, offset, offset)
    store.read_to_end_done()
    assert translate(store, 479) == 1  # the syncs of the startup read are kept
    for offset in range(1010, 10001, 10):
        sync(store, offset, offset)
        assert_invariants(store)
    kept = [s.upstream_offset for s in store.kept(TOPIC, PARTITION)]
    assert kept == [10000, 9990, 9960, 9900, 9840, 9600, 9120, 8640, 7680, 3840, 0]


def test_a_repeated_sync_changes_no_translation() -> None:
    store = OffsetSyncStore()
    store.read_to_end_done()
    for _ in range(3):
        sync(store, 0, 0)
        sync(store, 10, 12)
    assert_invariants(store)
    assert translate(store, 0) == 0
    assert translate(store, 10) == 12
    assert translate(store, 11) == 13


def test_with_a_full_history_a_group_far_behind_the_head_re_reads_less_than_offset_lag_max() -> None:
    # The case: syncs every 100 records (offset.lag.max=100), a group 2,000 records behind the head.
    java_only, precise = OffsetSyncStore(False), OffsetSyncStore(False, history=1000)
    for store in (java_only, precise):
        store.read_to_end_done()
        for upstream in range(0, 5001, 100):
            sync(store, upstream, upstream + 7)
    group_at = 3050
    assert translate(precise, group_at) == 3000 + 7 + 1
    assert translate(precise, 3000) == 3007
    java = translate(java_only, group_at)
    assert java is not None and java < 3000 + 7 - 100, "Java's spread-out syncs alone are this coarse"


def test_the_full_history_keeps_its_size_falls_back_to_javas_syncs_and_never_translates_ahead() -> None:
    store = OffsetSyncStore(False, history=10)
    store.read_to_end_done()
    for upstream in range(0, 10001, 10):
        sync(store, upstream, upstream)
    # The latest 10 to 19 syncs are kept in full (trimmed in halves): 9,910 and after are exact to 10.
    assert translate(store, 9915) == 9911
    # Older: Java's spread-out syncs answer, never ahead of the group's offset.
    for offset in (0, 999, 4839, 9000, 9800):
        translated = translate(store, offset)
        assert translated is not None and translated <= offset + 1


def test_a_rewind_and_a_first_read_that_keeps_only_the_last_sync_clear_the_full_history() -> None:
    store = OffsetSyncStore(True, history=100)
    for upstream in range(0, 1001, 10):
        sync(store, upstream, upstream)
    store.read_to_end_done()
    assert translate(store, 500) == -1, "only the last sync survives that first read"
    sync(store, 1010, 1010)
    assert translate(store, 1005) == 1001
    sync(store, 20, 2000)  # the upstream partition rewound (a re-created topic)
    assert translate(store, 1005) == 2001
    assert translate(store, 10) == -1
