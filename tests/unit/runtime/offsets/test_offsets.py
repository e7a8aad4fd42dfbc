"""Source offset storage: Kafka Connect's key/value encoding, the memory and file stores, the reader."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from connect.api.errors import ConnectError, DataError
from connect.runtime.offsets import (
    OffsetStorageReader,
    decode_key,
    decode_offset,
    encode_key,
    encode_offset,
)
from connect.runtime.stores.local_offset_store import FileOffsetStore, MemoryOffsetStore


def test_keys_and_values_use_kafka_connects_compact_json() -> None:
    assert encode_key("my-src", {"filename": "a.txt"}) == b'["my-src",{"filename":"a.txt"}]'
    assert encode_offset({"position": 30}) == b'{"position":30}'
    assert encode_offset(None) is None
    assert decode_key(b'["my-src",{"filename":"a.txt"}]') == ("my-src", {"filename": "a.txt"})
    assert decode_offset(b'{"position":30}') == {"position": 30}


def test_non_ascii_partitions_are_written_as_utf8_not_escaped() -> None:
    assert encode_key("c", {"f": "ü"}) == '["c",{"f":"ü"}]'.encode()


def test_nested_values_are_rejected_like_kafka_does() -> None:
    with pytest.raises(DataError, match="primitives"):
        encode_key("c", {"f": {"nested": 1}})
    with pytest.raises(DataError, match="strings"):
        encode_offset({1: "x"})  # type: ignore[dict-item]


def test_malformed_stored_keys_and_values_decode_to_none() -> None:
    assert decode_key(b"not json") is None
    assert decode_key(b'{"a":1}') is None
    assert decode_offset(b"[1]") is None


def test_memory_store_sets_gets_and_deletes_with_tombstones() -> None:
    store = MemoryOffsetStore()
    store.set({b"a": b"1", b"b": b"2"})
    assert store.get([b"a", b"c"]) == {b"a": b"1"}
    store.set({b"a": None})
    assert store.snapshot() == {b"b": b"2"}


def test_file_store_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "offsets" / "connect.offsets"
    store = FileOffsetStore(path)
    store.start()
    store.set({encode_key("c", {"p": 1}): encode_offset({"o": 41})})
    store.flush()
    reloaded = FileOffsetStore(path)
    reloaded.start()
    assert OffsetStorageReader("c", reloaded).offset({"p": 1}) == {"o": 41}


def test_file_store_writes_nothing_until_flush(tmp_path: Path) -> None:
    path = tmp_path / "connect.offsets"
    store = FileOffsetStore(path)
    store.start()
    store.set({b'["c",{}]': b"{}"})
    assert not path.exists()
    store.flush()
    assert path.exists()


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "connect.offsets"
    store = FileOffsetStore(path)
    store.start()
    store.set({b'["c",{"p":1}]': b'{"o":1}'})
    store.flush()
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    store.set({b'["c",{"p":1}]': b'{"o":2}'})
    with pytest.raises(ConnectError, match="disk full"):
        store.flush()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["connect.offsets"]

    monkeypatch.undo()
    store.flush()  # still dirty: the next flush writes it
    reloaded = FileOffsetStore(path)
    reloaded.start()
    assert reloaded.get([b'["c",{"p":1}]']) == {b'["c",{"p":1}]': b'{"o":2}'}


def test_a_corrupt_file_is_an_error_not_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "connect.offsets"
    path.write_bytes(b"\x00garbage")
    with pytest.raises(ConnectError, match="format"):
        FileOffsetStore(path).start()


def test_reader_sees_only_its_connectors_offsets() -> None:
    store = MemoryOffsetStore()
    store.set(
        {
            encode_key("a", {"f": "x"}): encode_offset({"pos": 1}),
            encode_key("b", {"f": "x"}): encode_offset({"pos": 2}),
        }
    )
    reader = OffsetStorageReader("a", store)
    assert reader.offsets([{"f": "x"}, {"f": "y"}]) == [({"f": "x"}, {"pos": 1}), ({"f": "y"}, None)]
