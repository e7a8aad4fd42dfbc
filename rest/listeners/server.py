"""`RestServer`: serves the REST app with uvicorn on Kafka Connect's `listeners` and `admin.listeners`.

`start()` binds the listener sockets in the caller's thread (so a port in use fails right there), runs
uvicorn on a background thread, and returns once it serves; `stop()` shuts it down gracefully. Entry
points may call `serve()` instead, which blocks until SIGINT/SIGTERM or `stop()`.
`http` and `https` listeners may be mixed: each socket is served with its own TLS context (the
caller builds them, see `rest.tls`). Admin listeners share the server; `ListenerRoles` decides which
listener answers which path.
Logging is left to the entry point (`log_config=None`) and the access log is off unless asked for.
HTTP is parsed by httptools and the loop is uvloop's (both dependencies).
"""

from __future__ import annotations

import logging
import signal
import socket
import ssl
import threading
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp

from connect.api.errors import ConfigError
from rest.listeners.addresses import ALL_INTERFACES, HTTPS, Listener, advertised_protocol, parse_listeners
from rest.listeners.roles import AdminEndpoints, ListenerRoles
from rest.listeners.uvicorn_sockets import ListenerServer

_log = logging.getLogger(__name__)

__all__ = ["Listener", "RestServer", "parse_listeners"]


class RestServer:
    def __init__(
        self,
        app: ASGIApp,
        listeners: str = "http://:8083",
        *,
        https_context: ssl.SSLContext | None = None,
        admin_listeners: str | None = None,
        admin_https_context: ssl.SSLContext | None = None,
        advertised_host: str | None = None,
        advertised_port: int | None = None,
        advertised_listener: str | None = None,
        access_log: bool = False,
        graceful_timeout: int = 10,
        startup_timeout: float = 30.0,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        """`admin_listeners`: None serves `/admin` on `listeners` (Kafka's default), "" turns it off.
        `on_stop` runs once the server has stopped (e.g. closing REST extensions)."""
        self._app = app
        self._listeners = parse_listeners(listeners)
        self._admin_listeners = (
            parse_listeners(admin_listeners, key="admin.listeners", allow_empty=True)
            if admin_listeners is not None
            else []
        )
        self._admin_mode = _admin_mode(admin_listeners)
        self._contexts = [_context_for(lst, https_context, "listeners") for lst in self._listeners] + [
            _context_for(lst, admin_https_context, "admin.listeners") for lst in self._admin_listeners
        ]
        _check_distinct_ports(self._listeners, self._admin_listeners)
        self._advertised_protocol = advertised_protocol(self._listeners, advertised_listener)
        self._advertised_host = advertised_host
        self._advertised_port = advertised_port
        self._access_log = access_log
        self._graceful_timeout = graceful_timeout
        self._startup_timeout = startup_timeout
        self._sockets: list[socket.socket] = []
        self._bound: list[tuple[str, int]] = []
        self._server: ListenerServer | None = None
        self._thread: threading.Thread | None = None
        self._stop_requested = threading.Event()
        self._on_stop = on_stop

    @property
    def listeners(self) -> list[Listener]:
        return list(self._listeners)

    @property
    def port(self) -> int:
        """The port the first listener is bound to (the real one when it asked for port 0)."""
        return self.bound_addresses[0][1]

    @property
    def bound_addresses(self) -> list[tuple[str, int]]:
        """(host, port) of each regular listener as bound; RuntimeError before `start()`/`serve()`."""
        if not self._bound:
            raise RuntimeError("The REST server is not bound yet")
        return list(self._bound[: len(self._listeners)])

    @property
    def admin_addresses(self) -> list[tuple[str, int]]:
        """(host, port) of each admin listener as bound (empty without admin listeners)."""
        if not self._bound:
            raise RuntimeError("The REST server is not bound yet")
        return list(self._bound[len(self._listeners) :])

    def local_url(self, protocol: str | None = None) -> str:
        """`scheme://127.0.0.1:port` of the first listener of `protocol` (any if None), for local callers."""
        for index, listener in enumerate(self._listeners):
            if protocol is None or listener.protocol == protocol:
                return f"{listener.protocol}://127.0.0.1:{self.bound_addresses[index][1]}"
        raise ValueError(f"No {protocol} listener")

    @property
    def advertised_url(self) -> str:
        """The URL other workers and clients should use, like Kafka's (`http://host:port/`): the first
        listener of the advertised protocol (`rest.advertised.listener`), unless host or port are overridden."""
        index = next(i for i, lst in enumerate(self._listeners) if lst.protocol == self._advertised_protocol)
        listener = self._listeners[index]
        host = self._advertised_host or listener.host.strip("[]")
        if not host or host in (ALL_INTERFACES, "::"):
            host = socket.gethostname()
        port = self._advertised_port or (self._bound[index][1] if self._bound else listener.port)
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
        on_stop, self._on_stop = self._on_stop, None
        if on_stop is not None:
            on_stop()

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _prepare(self) -> ListenerServer:
        if self._server is not None:
            raise RuntimeError("A REST server serves once; build a new one")
        self._sockets = []
        try:
            for listener in [*self._listeners, *self._admin_listeners]:
                self._sockets.append(_bind(listener))
        except OSError:
            self._close_sockets()
            raise
        self._bound = [(sock.getsockname()[0], sock.getsockname()[1]) for sock in self._sockets]
        admin_ports = [port for _, port in self.admin_addresses]
        app = self._app
        if self._admin_mode is not AdminEndpoints.SHARED:
            app = ListenerRoles(app, self._admin_mode, admin_ports)
        config = uvicorn.Config(
            app,
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
        self._server = ListenerServer(config, self._contexts)
        return self._server

    def _run(self, server: ListenerServer) -> None:
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
        listeners = [*self._listeners, *self._admin_listeners]
        bound = zip(listeners, self._bound, strict=True)
        described = [f"{lst.protocol}://{host}:{port}" for lst, (host, port) in bound]
        admin = len(self._listeners)
        return ", ".join(described[:admin]) + (f" (admin: {', '.join(described[admin:])})" if described[admin:] else "")


def _admin_mode(admin_listeners: str | None) -> AdminEndpoints:
    if admin_listeners is None:
        return AdminEndpoints.SHARED
    return AdminEndpoints.SEPARATE if admin_listeners.strip(" ,") else AdminEndpoints.DISABLED


def _context_for(listener: Listener, context: ssl.SSLContext | None, key: str) -> ssl.SSLContext | None:
    if listener.protocol != HTTPS:
        return None
    if context is None:
        raise ConfigError(f"{key} has the https listener {listener} but no TLS settings were given")
    return context


def _check_distinct_ports(listeners: list[Listener], admin: list[Listener]) -> None:
    shared = {lst.port for lst in listeners if lst.port} & {lst.port for lst in admin if lst.port}
    if shared:
        raise ConfigError(f"admin.listeners must not share a port with listeners (port {min(shared)})")


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
        raise OSError(exc.errno, f"Cannot bind REST listener {listener}: {exc.strerror}") from exc
    return sock
