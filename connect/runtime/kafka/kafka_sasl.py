"""Logging in to a SASL listener for the requests the worker sends itself (`group_eviction.py`).

Kafka's SASL exchange (KIP-152): a SaslHandshake request names the mechanism, then each token of the
mechanism travels in a SaslAuthenticate request and its answer. PLAIN sends one token (RFC 4616);
SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) two, and check the server's signature in the end,
so a broker that does not know the password cannot pass for the real one. GSSAPI and OAUTHBEARER are not
spoken here (`supported_mechanism` says so; the caller then leaves eviction to the session timeout).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from connect.runtime.kafka.kafka_wire import KafkaConnection, bytes_, string

_SASL_HANDSHAKE, _SASL_AUTHENTICATE = 17, 36
_NONE = 0
_SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
MECHANISMS = frozenset({"PLAIN", *_SCRAM_HASHES})


class SaslError(Exception):
    """The broker refused the login, or answered what a broker that knows the password could not."""


@dataclass(frozen=True)
class SaslLogin:
    mechanism: str
    username: str
    password: str

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> SaslLogin | None:
        """The login in librdkafka's keys (`sasl.mechanisms` or `sasl.mechanism`, `sasl.username`,
        `sasl.password`); None when there is none this module can speak."""
        mechanism = (config.get("sasl.mechanisms") or config.get("sasl.mechanism") or "GSSAPI").strip().upper()
        if mechanism not in MECHANISMS or "sasl.username" not in config or "sasl.password" not in config:
            return None
        return cls(mechanism, config["sasl.username"], config["sasl.password"])

    def authenticate(self, connection: KafkaConnection) -> None:
        _handshake(connection, self.mechanism)
        if self.mechanism == "PLAIN":
            _exchange(connection, b"\0" + self.username.encode() + b"\0" + self.password.encode())
            return
        scram = ScramClient(self.mechanism, self.username, self.password)
        server_first = _exchange(connection, scram.first_message())
        server_final = _exchange(connection, scram.final_message(server_first))
        scram.check_server_final(server_final)


def _handshake(connection: KafkaConnection, mechanism: str) -> None:
    answer = connection.request(_SASL_HANDSHAKE, 1, string(mechanism))
    error = answer.int16()
    offered = [answer.string() for _ in range(answer.int32())]
    if error != _NONE:
        raise SaslError(f"the broker does not take SASL mechanism {mechanism} (it takes {', '.join(offered)})")


def _exchange(connection: KafkaConnection, token: bytes) -> bytes:
    answer = connection.request(_SASL_AUTHENTICATE, 1, bytes_(token))
    error, message = answer.int16(), answer.nullable_string()
    reply = answer.bytes_()
    answer.int64()  # session_lifetime_ms: the connection is used for a few requests only
    if error != _NONE:
        raise SaslError(f"SASL authentication failed: {message or f'error {error}'}")
    return reply


def _saslname(name: str) -> str:
    return name.replace("=", "=3D").replace(",", "=2C")


class ScramClient:
    """The client side of one SCRAM exchange (RFC 5802 §3, without channel binding)."""

    def __init__(self, mechanism: str, username: str, password: str, nonce: str | None = None) -> None:
        self._hash = _SCRAM_HASHES[mechanism]
        self._password = password.encode()
        self._nonce = nonce if nonce is not None else secrets.token_urlsafe(24)
        self._first_bare = f"n={_saslname(username)},r={self._nonce}"
        self._server_signature = b""

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()

    def first_message(self) -> bytes:
        return f"n,,{self._first_bare}".encode()

    def final_message(self, server_first: bytes) -> bytes:
        text = server_first.decode()
        fields = dict(item.split("=", 1) for item in text.split(","))
        nonce, salt, iterations = fields.get("r", ""), fields.get("s", ""), int(fields.get("i", "0"))
        if not nonce.startswith(self._nonce) or not salt or iterations < 1:
            raise SaslError(f"unexpected SCRAM server-first message: {text!r}")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password, base64.b64decode(salt), iterations)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"  # biws: base64 of "n,,", no channel binding
        auth_message = f"{self._first_bare},{text},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def check_server_final(self, server_final: bytes) -> None:
        text = server_final.decode()
        if text.startswith("e="):
            raise SaslError(f"SCRAM authentication failed: {text[2:]}")
        expected = "v=" + base64.b64encode(self._server_signature).decode()
        if not hmac.compare_digest(text, expected):
            raise SaslError("the broker's SCRAM signature is wrong: it does not know the password")
