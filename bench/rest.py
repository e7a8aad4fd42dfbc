"""A small synchronous client of the Kafka Connect REST API, used the same way against both workers."""

from __future__ import annotations

import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


@dataclass(frozen=True)
class RestAccess:
    """How a client reaches a worker's REST API: which CA its TLS certificate chains to, whose credentials."""

    ca_file: Path | None = None  # None: plain http
    credentials: tuple[str, str] | None = None  # basic auth (user, password)

    @property
    def scheme(self) -> str:
        return "http" if self.ca_file is None else "https"

    def client_options(self) -> dict[str, Any]:
        """httpx.Client / AsyncClient keyword arguments: `verify` (one SSL context, loaded once) and `auth`."""
        options: dict[str, Any] = {}
        if self.ca_file is not None:
            options["verify"] = ssl.create_default_context(cafile=str(self.ca_file))
        if self.credentials is not None:
            options["auth"] = httpx.BasicAuth(*self.credentials)
        return options


class RestError(RuntimeError):
    """A request the harness relies on did not get the expected status."""


class ConnectRest:
    def __init__(self, base_url: str, timeout: float = 30.0, access: RestAccess | None = None) -> None:
        self.base_url = base_url
        self.access = access or RestAccess()
        self._client = httpx.Client(base_url=base_url, timeout=timeout, **self.access.client_options())

    def close(self) -> None:
        self._client.close()

    def ready(self) -> bool:
        """True once `GET /connectors` answers 200: the REST server and the herder both serve."""
        try:
            return self._client.get("/connectors", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def healthy(self) -> bool:
        """True once `GET /health` answers 200: a distributed worker has joined its group (Kafka 4.0+)."""
        try:
            return self._client.get("/health", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def _expect(self, response: httpx.Response, *statuses: int) -> Any:
        if response.status_code not in statuses:
            raise RestError(
                f"{response.request.method} {response.request.url.path}: {response.status_code} {response.text}"
            )
        return response.json() if response.content else None

    def create(self, name: str, config: Mapping[str, str], initial_state: str | None = None) -> Any:
        body: dict[str, Any] = {"name": name, "config": dict(config)}
        if initial_state is not None:
            body["initial_state"] = initial_state  # KIP-980
        return self._expect(self._client.post("/connectors", json=body), 201)

    def delete(self, name: str) -> None:
        self._expect(self._client.delete(f"/connectors/{name}"), 204, 404)

    def pause(self, name: str) -> None:
        self._expect(self._client.put(f"/connectors/{name}/pause"), 202)

    def resume(self, name: str) -> None:
        self._expect(self._client.put(f"/connectors/{name}/resume"), 202)

    def connectors(self) -> list[str]:
        names: list[str] = self._expect(self._client.get("/connectors"), 200)
        return names

    def status(self, name: str) -> Any:
        return self._expect(self._client.get(f"/connectors/{name}/status"), 200, 404)

    def wait_state(self, name: str, state: str, tasks: int, timeout: float = 60.0) -> None:
        """Wait until the connector and `tasks` tasks report `state`; a FAILED task raises at once."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            last = self.status(name)
            if last and "connector" in last:
                task_states = [task["state"] for task in last.get("tasks", [])]
                if "FAILED" in task_states or last["connector"]["state"] == "FAILED":
                    raise RestError(f"connector {name} failed: {last}")
                if last["connector"]["state"] == state and task_states.count(state) >= tasks:
                    return
            time.sleep(0.05)
        raise RestError(f"connector {name} not {state} with {tasks} task(s) after {timeout:.0f}s: {last}")
