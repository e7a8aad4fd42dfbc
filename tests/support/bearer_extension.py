"""A user's own REST extension, as a team would write one: bearer tokens from a worker key."""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from connect.api.errors import ConfigError
from rest.extensions import Authenticator, Principal, RestExtension, RestExtensionContext, RestRequest

TOKEN_KEY = "rest.bearer.token"


class BearerTokenAuthenticator(Authenticator):
    def __init__(self, token: str) -> None:
        self._token = token.encode()

    @property
    def challenge(self) -> str:
        return 'Bearer realm="kconnect"'

    def authenticate(self, request: RestRequest) -> Principal | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), self._token):
            return Principal("service", "BEARER")
        return None


class BearerTokenExtension(RestExtension):
    def __init__(self) -> None:
        self._token = ""
        self.closed = False

    def configure(self, configs: Mapping[str, str]) -> None:
        self._token = configs.get(TOKEN_KEY, "")
        if not self._token:
            raise ConfigError(f"{TOKEN_KEY} is required by BearerTokenExtension")

    def register(self, context: RestExtensionContext) -> None:
        context.add_authenticator(BearerTokenAuthenticator(self._token))
