"""`RestServer`: serves the REST app with uvicorn on Kafka Connect's `listeners`.

`start()` binds the listener sockets in the caller's thread (so a port in use fails right there), runs
uvicorn on a background thread, and returns once it serves; `stop()` shuts it down gracefully. Entry
points may call `serve()` instead, which blocks until SIGINT/SIGTERM or `stop()`.
Logging is left to the entry point (`log_config=None`) and the access log is off unless asked for.
HTTP is parsed by httptools and the loop is uvloop's (both dependencies).
"""

from __future__ import annotations

import logging
import re
import signal
import socket
import threading
from dataclasses import dataclass

import uvicorn
from starlette.types import ASGIApp

from connect.api.errors import ConfigError

_log = logging.getLogger(__name__)

_LISTENER = re.compile(r"^(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>\[[^\]]*\]|[^:/\[\]]*):(?P<port>\d+)/?$")
_ALL_INTERFACES = "0.0.0.0"


@dataclass(frozen=True)
class Listener:
    """One entry of `listeners`: `http://host:port`; an empty host means all interfaces, port 0 any free port."""

    protocol: str
    host: str
    port: int

    @property
    def bind_host(self) -> str:
        return self.host.strip("[]") or _ALL_INTERFACES


def parse_listeners(listeners: str) -> list[Listener]:
    """Parse Kafka's comma-separated `listeners` value; ConfigError if malformed or not http."""
    parsed = []
    for entry in (part.strip() for part in listeners.split(",")):
        if not entry:
            continue
        match = _LISTENER.match(entry)
        if match is None or int(match["port"]) > 65535:
            raise ConfigError(f"Invalid listener '{entry}': expected PROTOCOL://HOST:PORT, e.g. http://:8083")
        protocol = match["protocol"].lower()
        if protocol != "http":
            raise ConfigError(f"Invalid listener '{entry}': only http listeners are supported")
        parsed.append(Listener(protocol, match["host"], int(match["port"])))
    if not parsed:
        raise ConfigError("listeners must name at least one listener, e.g. http://:8083")
    return parsed


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, telling a waiting thread when its startup is over (whether it succeeded or not)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.startup_done = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.startup_done.set()


class RestServer:
    def __init__(
        self,
        app: ASGIApp,
        listeners: str = "http://:8083",
        *,
        advertised_host: str | None = None,
        advertised_port: int | None = None,
        access_log: bool = False,
        graceful_timeout: int = 10,
        startup_timeout: float = 30.0,
    ) -> None:
        self._app = app
        self._listeners = parse_listeners(listeners)
        self._advertised_host = advertised_host
        self._advertised_port = advertised_port
        self._access_log = access_log
        self._graceful_timeout = graceful_timeout
        self._startup_timeout = startup_timeout
        self._sockets: list[socket.socket] = []
        self._bound: list[tuple[str, int]] = []
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None
        self._stop_requested = threading.Event()

    @property
    def listeners(self) -> list[Listener]:
        return list(self._listeners)

    @property
    def port(self) -> int:
        """The port the first listener is bound to (the real one when it asked for port 0)."""
        return self.bound_addresses[0][1]

    @property
    def bound_addresses(self) -> list[tuple[str, int]]:
        """(host, port) of each listener as bound; RuntimeError before `start()`/`serve()`."""
        if not self._bound:
            raise RuntimeError("The REST server is not bound yet")
        return list(self._bound)

    @property
    def advertised_url(self) -> str:
        """The URL other workers and clients should use, like Kafka's (`http://host:port/`)."""
        listener = self._listeners[0]
        host = self._advertised_host or listener.host.strip("[]")
        if not host or host in (_ALL_INTERFACES, "::"):
            host = socket.gethostname()
        port = self._advertised_port or (self.port if self._bound else listener.port)
        shown_host = f"[{host}]" if ":" in host else host
        return f"{listener.protocol}://{shown_host}:{port}/"

    def start(self) -> None:
        """Bind, serve on a background thread, and return once requests are being answered."""
        if self._thread is not None:
            raise RuntimeError("The REST server was already started")
        server = self._prepare()
        thread = threading.Thread(target=self._run, args=(server,), name="rest-server", daemon=True)
        self._thread = thread
        thread.start()
        if not server.startup_done.wait(self._startup_timeout) or not server.started:
            self.stop()
            raise RuntimeError(f"The REST server did not start on {self._describe_listeners()}")
        _log.info("REST server listening on %s, advertised as %s", self._describe_listeners(), self.advertised_url)

    def serve(self) -> None:
        """Serve until SIGINT/SIGTERM (on the main thread) or `stop()`, then shut down and return normally.

        Returning, rather than re-raising the signal as uvicorn does, lets an entry point stop its
        herder and tasks after the REST server.
        """
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, lambda *_: self._stop_requested.set())
        try:
            self.start()
            self._stop_requested.wait()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self.stop()

    def stop(self) -> None:
        """Stop accepting requests, let the ones in flight finish (up to the graceful timeout), and return."""
        self._stop_requested.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(self._graceful_timeout + 5.0)
            if self._thread.is_alive():
                _log.warning("The REST server thread did not finish within %.1f s", self._graceful_timeout + 5.0)
        self._close_sockets()

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _prepare(self) -> _Uvicorn:
        if self._server is not None:
            raise RuntimeError("A REST server serves once; build a new one")
        self._sockets = []
        try:
            for listener in self._listeners:
                self._sockets.append(_bind(listener))
        except OSError:
            self._close_sockets()
            raise
        self._bound = [(sock.getsockname()[0], sock.getsockname()[1]) for sock in self._sockets]
        config = uvicorn.Config(
            self._app,
            log_config=None,
            access_log=self._access_log,
            timeout_graceful_shutdown=self._graceful_timeout,
            ws="none",
            server_header=False,
            # The C parser and libuv loop spend less interpreter time per request, which matters most when
            # task threads compete for it (docs/performance.md, "REST").
            http="httptools",
            loop="uvloop",
        )
        self._server = _Uvicorn(config)
        return self._server

    def _run(self, server: _Uvicorn) -> None:
        try:
            server.run(sockets=self._sockets)
        except BaseException:
            _log.exception("The REST server stopped with an error")
            raise
        finally:
            server.startup_done.set()

    def _close_sockets(self) -> None:
        for sock in self._sockets:
            sock.close()

    def _describe_listeners(self) -> str:
        return ", ".join(f"http://{host}:{port}" for host, port in self._bound)


def _bind(listener: Listener) -> socket.socket:
    host = listener.bind_host
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP is what makes asyncio set TCP_NODELAY on each accepted connection (it checks the
    # socket's proto, which accepted sockets inherit): without it, a response written in two pieces waits
    # on the client's delayed ACK (~40 ms) whenever a connection is kept alive.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, listener.port))
    except OSError as exc:
        sock.close()
        where = f"{listener.protocol}://{listener.host}:{listener.port}"
        raise OSError(exc.errno, f"Cannot bind REST listener {where}: {exc.strerror}") from exc
    return sock
