"""Seeing a peer worker's process die at once, instead of at its group session's expiry.

Each worker listens on a TCP port of its own (`LivenessListener`, `liveness.port`, by default one the
system picks) and writes its `host:port` into its slot claims. Every worker holds one connection to each
other slot owner (`PeerWatcher`); on connecting it is told the peer's membership client id, which names
the peer's membership consumer in the workers' group and changes with every process.

When the process behind a connection dies (kill -9, a crash, the OOM killer), its operating system closes
the connection at once. A closed connection alone proves nothing (a network blip, a proxy), so the watcher
connects again at once:
- **refused**: nothing listens there any more: the process is gone. Its membership consumer is evicted from
  the group (`group_eviction.py`), so its slots move in the next rebalance instead of after
  `session.timeout.ms`;
- **accepted** with another client id: a new process took the old one's place; the old one is gone too;
- **accepted** with the same client id: the process lives; nothing happens;
- no answer (a cut network, a frozen host): no verdict; Kafka's session timeout decides, as before.

An eviction gives up no safety: the group coordinator is still the only one that moves slots, and a member
evicted by mistake is fenced as after a session expiry (its heartbeat is refused, it loses its slots at
once and rejoins). A hung process (SIGSTOP) keeps its connections open and is still left to the session
timeout and the stall guard (`stall.py`).
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import orjson

log = logging.getLogger(__name__)

_CONNECT_TIMEOUT_S = 1.0
_PROBE_WINDOW_S = 1.0
_PROBE_RETRY_S = 0.02
_RECONNECT_AFTER_S = 1.0
_SELECT_S = 0.25
_HELLO_LIMIT = 4096
HEARTBEAT_S = 0.5  # how often a listener writes a byte to each peer
_WATCHER_STALL_S = 1.0  # a watcher step later than this: the watcher itself stood still, not its peers
_BEAT = b"."


def silence_stall_threshold(silence_limit_s: float) -> float:
    """A stall of this process longer than this may have made its peers take it for hung (their clock starts
    at its last beat, up to one beat before the stall): the stall guard must act before that, with a second
    to spare."""
    return max(0.5, silence_limit_s - HEARTBEAT_S - 1.0)


class LivenessListener:
    """Accepts peers' connections, tells each this process's membership client id, and keeps them open."""

    def __init__(self, client_id: str, port: int = 0) -> None:
        self._hello = orjson.dumps({"client_id": client_id}) + b"\n"
        self._server = socket.create_server(("", port), backlog=64)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._server, selectors.EVENT_READ)
        self._stopped = threading.Event()
        self._peers: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, name="liveness-listener", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.getsockname()[1])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Only at the very end of a graceful stop: peers that see it take this worker for dead."""
        self._stopped.set()
        self._thread.join(2.0)

    def _serve(self) -> None:
        next_beat = time.monotonic()
        while not self._stopped.is_set():
            try:
                for key, _ in self._selector.select(min(_SELECT_S, max(next_beat - time.monotonic(), 0.0))):
                    self._ready(key.fileobj)  # type: ignore[arg-type]
                if time.monotonic() >= next_beat:
                    self._beat()
                    next_beat = time.monotonic() + HEARTBEAT_S
            except Exception:  # the listener must outlive any one connection's trouble
                log.exception("Liveness listener")
        for key in list(self._selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self._selector.close()

    def _ready(self, sock: socket.socket) -> None:
        if sock is self._server:
            peer, _ = sock.accept()
            try:
                peer.sendall(self._hello)
            except OSError:
                peer.close()
                return
            peer.setblocking(False)
            self._selector.register(peer, selectors.EVENT_READ)
            self._peers.append(peer)
            return
        try:
            data = sock.recv(_HELLO_LIMIT)
        except OSError:
            data = b""
        if not data:  # the peer went away or closed its end
            self._forget(sock)

    def _beat(self) -> None:
        """One byte to every peer: a process that stops sending them is hung (or cut off)."""
        for peer in list(self._peers):
            try:
                peer.send(_BEAT)
            except BlockingIOError:
                pass  # its buffer is full: it has not read for a while; its own watcher judges that
            except OSError:
                self._forget(peer)

    def _forget(self, sock: socket.socket) -> None:
        if sock in self._peers:
            self._peers.remove(sock)
            self._selector.unregister(sock)
        sock.close()


@dataclass
class _Link:
    address: str
    client_id: str
    sock: socket.socket
    heard_at: float = 0.0
    silent: bool = False  # reported for its silence; not again until it is heard from


@dataclass
class _Pending:
    address: str
    retry_at: float = 0.0


@dataclass
class PeerWatcher:
    """Holds a connection to each peer of `peers()` ({worker id: liveness `host:port`}) and calls `on_death`
    with a peer's membership client id once its process is certainly gone (module docstring)."""

    peers: Callable[[], Mapping[str, str]]
    on_death: Callable[[str, str], None]  # (worker id, membership client id)
    clock: Callable[[], float]
    silence_limit: float = float("inf")  # a peer not heard from this long is hung: reported like a dead one
    _selected_at: float | None = None  # when the last select came back
    _connecting: float = 0.0  # seconds spent connecting since then
    _links: dict[str, _Link] = field(default_factory=dict)
    _pending: dict[str, _Pending] = field(default_factory=dict)
    _stopped: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    rounds: int = 0  # steps taken (each at most `_SELECT_S` long): what a test waits on to see time pass here

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="liveness-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def watched(self) -> dict[str, str]:
        """{worker id: membership client id} of the peers connected now."""
        return {worker: link.client_id for worker, link in list(self._links.items())}

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        try:
            while not self._stopped.is_set():
                try:
                    self._step(selector)
                    self.rounds += 1
                except Exception:
                    log.exception("Liveness watcher")
                    self._stopped.wait(_RECONNECT_AFTER_S)
        finally:
            for link in self._links.values():
                link.sock.close()
            selector.close()

    def _step(self, selector: selectors.BaseSelector) -> None:
        wanted = dict(self.peers())
        for worker in [w for w, link in self._links.items() if wanted.get(w) != link.address]:
            self._drop(selector, worker)
        for worker in [w for w in self._pending if w not in wanted]:
            del self._pending[worker]
        now = self.clock()
        for worker, address in wanted.items():
            if worker in self._links:
                continue
            pending = self._pending.setdefault(worker, _Pending(address))
            if pending.address == address and pending.retry_at > now:
                continue
            pending.address = address
            link = self._timed_connect(address)
            if isinstance(link, _Link):
                link.heard_at = self.clock()
                self._links[worker] = link
                del self._pending[worker]
                selector.register(link.sock, selectors.EVENT_READ, worker)
            else:
                pending.retry_at = now + _RECONNECT_AFTER_S
        # Silence is judged at the time the select came back: a stall of this process after it (or a
        # slow probe of another peer) must not count against a peer whose bytes wait in the socket.
        ready = selector.select(_SELECT_S)
        selected = self.clock()
        if self._selected_at is not None:  # late: the time since the last step not spent waiting or connecting
            self._check_own_stall(selected - self._selected_at - _SELECT_S - self._connecting, selected)
        self._selected_at, self._connecting = selected, 0.0
        for key, _ in ready:
            self._readable(selector, str(key.data), selected)
        self._check_silence(selected)

    def _check_own_stall(self, late: float, now: float) -> None:
        """After a stall of this process (the select came back `late` seconds after its timeout), every peer
        looks silent: hear them all anew instead of blaming them."""
        if late > _WATCHER_STALL_S:
            for link in self._links.values():
                link.heard_at = now

    def _check_silence(self, now: float) -> None:
        for worker, link in list(self._links.items()):
            if link.silent or now - link.heard_at < self.silence_limit:
                continue
            link.silent = True
            log.warning(
                "Worker %s has not been heard from for %.1f s (hung, or cut off): evicting it from the group",
                worker,
                now - link.heard_at,
            )
            self.on_death(worker, link.client_id)

    def _readable(self, selector: selectors.BaseSelector, worker: str, now: float) -> None:
        link = self._links[worker]
        try:
            if link.sock.recv(_HELLO_LIMIT):
                if link.silent:
                    log.info("Worker %s is heard from again", worker)
                link.heard_at, link.silent = now, False
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self._drop(selector, worker)
        self._closed(selector, worker, link)

    def _closed(self, selector: selectors.BaseSelector, worker: str, link: _Link) -> None:
        """The connection to `worker` closed: connect again to tell a dead process from a blip."""
        again = self._probe(link.address)
        if again == "refused":
            log.warning("Worker %s is gone (its liveness port refuses connections): evicting it from the group", worker)
            self.on_death(worker, link.client_id)
            return
        if isinstance(again, _Link):
            again.heard_at = self.clock()
            if again.client_id != link.client_id:
                log.warning("Worker %s was replaced by a new process: evicting the old one from the group", worker)
                self.on_death(worker, link.client_id)
            self._links[worker] = again
            selector.register(again.sock, selectors.EVENT_READ, worker)
            return
        log.info("Lost the liveness connection to worker %s and cannot reach it: its session timeout decides", worker)
        self._pending[worker] = _Pending(link.address, self.clock() + _RECONNECT_AFTER_S)

    def _probe(self, address: str) -> _Link | str:
        """Connect to `address` again. A dying process closes its sockets one by one: a connection may still
        land in its listener's queue and be reset a moment later. So a reset is tried again, for a while."""
        deadline = self.clock() + _PROBE_WINDOW_S
        while True:
            again = self._timed_connect(address)
            if again != "reset" or self.clock() >= deadline or self._stopped.wait(_PROBE_RETRY_S):
                return again

    def _timed_connect(self, address: str) -> _Link | str:
        started = self.clock()
        try:
            return _connect(address)
        finally:
            self._connecting += self.clock() - started

    def _drop(self, selector: selectors.BaseSelector, worker: str) -> None:
        link = self._links.pop(worker, None)
        if link is None:
            return
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(link.sock)
        link.sock.close()


def _connect(address: str) -> _Link | str:
    """A link to the listener at `address`, or why not: "refused" (nothing listens), "reset" (connected, but
    closed before the hello) or "unreachable" (no answer, no route, a bad address)."""
    host, _, port = address.rpartition(":")
    try:
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_TIMEOUT_S)
    except ConnectionRefusedError:
        return "refused"
    except (OSError, ValueError):
        return "unreachable"
    try:
        hello = _read_hello(sock)
    except TimeoutError:
        sock.close()
        return "unreachable"
    except (OSError, ValueError):
        sock.close()
        return "reset"
    sock.setblocking(False)
    return _Link(address, hello, sock)


def _read_hello(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(_HELLO_LIMIT)
        if not chunk or len(data) > _HELLO_LIMIT:
            raise ValueError("no hello from the liveness listener")
        data += chunk
    return str(orjson.loads(data)["client_id"])
