"""The liveness watcher over real local sockets: a peer whose process is gone is reported at once, with
the membership client id it announced; a dropped connection to a live peer, or a peer never reached, is
not; a peer replaced by a new process at the same address is."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.support.waiting import wait_until
from workers.distributed.liveness import LivenessListener, PeerWatcher


class Deaths:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def __call__(self, worker: str, client_id: str) -> None:
        self.seen.append((worker, client_id))


class Peers:
    def __init__(self) -> None:
        self.addresses: dict[str, str] = {}

    def __call__(self) -> dict[str, str]:
        return dict(self.addresses)


@pytest.fixture
def watched() -> Iterator[tuple[PeerWatcher, Peers, Deaths]]:
    peers, deaths = Peers(), Deaths()
    watcher = PeerWatcher(peers, deaths, time.monotonic)
    watcher.start()
    yield watcher, peers, deaths
    watcher.stop()


class OneShotServer:
    """A listener that says hello as `client_id` and can drop its connections while it keeps listening."""

    def __init__(self, client_id: str, port: int = 0) -> None:
        self.server = socket.create_server(("127.0.0.1", port))
        self.server.settimeout(0.05)
        self.client_id = client_id
        self.accepted: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            conn.sendall(b'{"client_id": "%s"}\n' % self.client_id.encode())
            with self.lock:
                self.accepted.append(conn)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.getsockname()[1]}"

    def connections(self) -> int:
        with self.lock:
            return len(self.accepted)

    def beat(self) -> None:
        with self.lock:
            for conn in self.accepted:
                conn.send(b".")

    def drop_connections(self) -> None:
        with self.lock:
            for conn in self.accepted:
                conn.close()
            self.accepted.clear()

    def close(self) -> None:
        self.closed.set()
        self.thread.join(5)
        self.server.close()
        self.drop_connections()


def test_a_peer_whose_process_is_gone_is_reported_at_once(watched: tuple[PeerWatcher, Peers, Deaths]) -> None:
    watcher, peers, deaths = watched
    listener = LivenessListener("kconnect-worker-w2:8083-abc")
    listener.start()
    peers.addresses["w2:8083"] = f"127.0.0.1:{listener.port}"
    wait_until(lambda: watcher.watched() == {"w2:8083": "kconnect-worker-w2:8083-abc"}, 5.0, "the link")

    started = time.monotonic()
    listener.stop()  # as the process's exit would: every connection and the port closed

    wait_until(lambda: deaths.seen, 5.0, "the death to be reported")
    assert time.monotonic() - started < 1.0
    assert deaths.seen == [("w2:8083", "kconnect-worker-w2:8083-abc")]


def test_a_dropped_connection_to_a_live_peer_is_no_death(watched: tuple[PeerWatcher, Peers, Deaths]) -> None:
    watcher, peers, deaths = watched
    server = OneShotServer("c-live")
    peers.addresses["w2:8083"] = server.address
    wait_until(lambda: server.connections() == 1, 5.0, "the link")

    server.drop_connections()

    wait_until(lambda: server.connections() == 1, 5.0, "the watcher to connect again")
    assert deaths.seen == []
    assert watcher.watched() == {"w2:8083": "c-live"}
    server.close()


def test_a_peer_replaced_by_a_new_process_at_the_same_address_is_reported(
    watched: tuple[PeerWatcher, Peers, Deaths],
) -> None:
    watcher, peers, deaths = watched
    old = OneShotServer("c-old")
    peers.addresses["w2:8083"] = old.address
    wait_until(lambda: old.connections() == 1, 5.0, "the link")
    port = old.server.getsockname()[1]
    old.close()
    new = OneShotServer("c-new", port)  # bound before the watcher's probe: what a fast restart looks like

    wait_until(lambda: deaths.seen, 5.0, "the old process's death")
    assert deaths.seen == [("w2:8083", "c-old")]
    wait_until(lambda: watcher.watched() == {"w2:8083": "c-new"}, 5.0, "the link to the new process")
    new.close()


def test_a_peer_never_reached_or_no_longer_an_owner_is_never_reported(
    watched: tuple[PeerWatcher, Peers, Deaths],
) -> None:
    watcher, peers, deaths = watched
    closed = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    peers.addresses["w3:8083"] = address  # a claim of a process that died before this one started
    server = OneShotServer("c-leaving")
    peers.addresses["w2:8083"] = server.address
    wait_until(lambda: server.connections() == 1, 5.0, "the link")

    del peers.addresses["w2:8083"]  # its slots were claimed by others: no longer watched
    wait_until(lambda: "w2:8083" not in watcher.watched(), 5.0, "the link to be dropped")
    server.close()
    after = watcher.rounds
    wait_until(lambda: watcher.rounds >= after + 8, 10.0, "two seconds of the watcher's steps")

    assert deaths.seen == []


class JumpingClock:
    """time.monotonic, plus whatever a test adds: what a stall of the watcher's own process looks like."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


def silent_watcher(limit: float, clock: JumpingClock | None = None) -> tuple[PeerWatcher, Peers, Deaths]:
    peers, deaths = Peers(), Deaths()
    watcher = PeerWatcher(peers, deaths, clock or time.monotonic, silence_limit=limit)
    watcher.start()
    return watcher, peers, deaths


def test_a_silent_peer_is_reported_once_until_it_is_heard_from_again() -> None:
    watcher, peers, deaths = silent_watcher(1.0)
    server = OneShotServer("c-hung")  # says hello, then nothing: a hung process's kernel keeps the link open
    try:
        peers.addresses["w2:8083"] = server.address
        wait_until(lambda: deaths.seen, 5.0, "the silent peer to be reported")
        reported = watcher.rounds
        wait_until(lambda: watcher.rounds >= reported + 8, 10.0, "two more seconds of silence")
        assert deaths.seen == [("w2:8083", "c-hung")]  # once: an evicted member that rejoins is not chased

        server.beat()  # heard from again ...
        wait_until(lambda: watcher.rounds >= reported + 10, 10.0, "the beat to be read")
        wait_until(lambda: len(deaths.seen) == 2, 5.0, "... and silent again: reported again")
    finally:
        watcher.stop()
        server.close()


@contextlib.contextmanager
def linked_to_a_beating_listener(watcher: PeerWatcher, peers: Peers) -> Iterator[None]:
    listener = LivenessListener("c-alive")
    listener.start()
    try:
        peers.addresses["w2:8083"] = f"127.0.0.1:{listener.port}"
        wait_until(lambda: watcher.watched(), 5.0, "the link")
        yield
    finally:
        watcher.stop()
        listener.stop()


def test_a_beating_listener_is_never_reported_as_silent() -> None:
    watcher, peers, deaths = silent_watcher(2.0)  # four beats: a loaded test machine may delay one or two
    with linked_to_a_beating_listener(watcher, peers):
        start = watcher.rounds
        wait_until(lambda: watcher.rounds >= start + 12, 10.0, "three seconds of the watcher's steps")
        assert deaths.seen == []


def test_the_watcher_s_own_stall_blames_no_peer() -> None:
    clock = JumpingClock()
    watcher, peers, deaths = silent_watcher(2.0, clock)
    with linked_to_a_beating_listener(watcher, peers):
        clock.offset += 5.0  # as if this process had stood still for 5 s in the middle of a step
        start = watcher.rounds
        wait_until(lambda: watcher.rounds >= start + 8, 10.0, "two seconds of the watcher's steps")
        assert deaths.seen == []
