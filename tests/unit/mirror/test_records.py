"""MirrorMaker 2's internal records match, byte for byte, what Java's 4.3.1 classes write."""

from __future__ import annotations

import pytest

from connect.api.errors import DataError
from connect.mirror.records import Checkpoint, Heartbeat, OffsetSync


def test_an_offset_sync_is_written_as_java_writes_it_and_read_back() -> None:
    sync = OffsetSync("orders", 3, 1000, 997)
    assert sync.key().hex() == "00066f726465727300000003"
    assert sync.value().hex() == "00000000000003e800000000000003e5"
    assert OffsetSync.read(sync.key(), sync.value()) == sync


@pytest.mark.parametrize(
    ("metadata", "value_hex"),
    [("", "000000000000000003e800000000000003e60000"), ("m", "000000000000000003e800000000000003e600016d")],
)
def test_a_checkpoint_is_written_as_java_writes_it_and_read_back(metadata: str, value_hex: str) -> None:
    checkpoint = Checkpoint("g1", "A.orders", 3, 1000, 998, metadata)
    assert checkpoint.key().hex() == "000267310008412e6f726465727300000003"
    assert checkpoint.value().hex() == value_hex
    assert Checkpoint.read(checkpoint.key(), checkpoint.value()) == checkpoint


def test_a_heartbeat_is_written_as_java_writes_it_and_read_back() -> None:
    heartbeat = Heartbeat("A", "B", 1_700_000_000_000)
    assert heartbeat.key().hex() == "000141000142"
    assert heartbeat.value().hex() == "00000000018bcfe56800"
    assert Heartbeat.read(heartbeat.key(), heartbeat.value()) == heartbeat


def test_readers_ignore_trailing_bytes_as_javas_do() -> None:
    heartbeat = Heartbeat("A", "B", 5)
    assert Heartbeat.read(heartbeat.key() + b"\x00", heartbeat.value() + b"\x01\x02") == heartbeat


def test_a_record_cut_short_or_of_another_version_is_a_data_error() -> None:
    checkpoint = Checkpoint("g", "t", 0, 1, 1)
    with pytest.raises(DataError, match="cut short"):
        Checkpoint.read(checkpoint.key(), checkpoint.value()[:-3])
    with pytest.raises(DataError, match="version 1"):
        Checkpoint.read(checkpoint.key(), b"\x00\x01" + checkpoint.value()[2:])
    with pytest.raises(DataError, match="cut short"):
        OffsetSync.read(b"\x00\x09abc", b"")


def test_non_ascii_names_are_counted_in_utf8_bytes() -> None:
    sync = OffsetSync("bestellungen-ü", 0, 1, 1)
    assert sync.key()[:2] == len("bestellungen-ü".encode()).to_bytes(2, "big")
    assert OffsetSync.read(sync.key(), sync.value()).topic == "bestellungen-ü"
