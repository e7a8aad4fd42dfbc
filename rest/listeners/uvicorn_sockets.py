"""uvicorn's `Server`, serving each bound socket with its own TLS context (or none).

uvicorn applies one `ssl` setting to every socket, but Kafka's `listeners` may mix `http://` and
`https://` entries (and admin listeners have their own TLS keys). uvicorn's protocol objects tell
http from https by the transport they are given, so serving each socket with its own context is
all it takes; this class does that in `startup`, and tells a waiting thread when startup is over.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading

import uvicorn


class ListenerServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, contexts: list[ssl.SSLContext | None]) -> None:
        super().__init__(config)
        self.startup_done = threading.Event()
        self._contexts = contexts

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await self._start(sockets or [])
        finally:
            self.startup_done.set()

    async def _start(self, sockets: list[socket.socket]) -> None:
        await self.lifespan.startup()
        if self.lifespan.should_exit:
            return
        config = self.config

        def create_protocol(_loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Protocol:
            return config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state, _loop=_loop
            )

        loop = asyncio.get_running_loop()
        self.servers = []
        for sock, context in zip(sockets, self._contexts, strict=True):
            server = await loop.create_server(create_protocol, sock=sock, ssl=context, backlog=config.backlog)
            self.servers.append(server)
        self.started = True
