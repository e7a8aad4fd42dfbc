"""`AsgiClient`: a synchronous HTTP client that calls an ASGI app in-process, through httpx's ASGITransport.

Starlette's TestClient warns (an error under our pytest settings) unless the httpx2 package is installed,
so REST unit tests use this instead. Each request runs on its own short-lived event loop; redirects are
never followed, so a test sees exactly what the app answered.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from starlette.types import ASGIApp


class AsgiClient:
    def __init__(self, app: ASGIApp, base_url: str = "http://testserver") -> None:
        self._app = app
        self._base_url = base_url

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return asyncio.run(self._request(method, url, kwargs))

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", url, **kwargs)

    def patch(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", url, **kwargs)

    async def _request(self, method: str, url: str, kwargs: dict[str, Any]) -> httpx.Response:
        transport = httpx.ASGITransport(app=self._app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url=self._base_url) as client:
            response = await client.request(method, url, **kwargs)
            await response.aread()
            return response
