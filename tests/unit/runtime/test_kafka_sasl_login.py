"""The worker's own SASL login (group eviction): SCRAM against RFC 7677's example exchange, PLAIN's token,
and what is refused; the Kafka frames checked against a scripted broker on a socket pair."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable

import pytest

from connect.runtime.kafka.kafka_sasl import SaslError, SaslLogin, ScramClient
from connect.runtime.kafka.kafka_wire import KafkaConnection, Reader, array, bytes_, int32, nullable_string, string

# RFC 7677 §3: user "user", password "pencil".
CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
SERVER_FIRST = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
CLIENT_FINAL = (
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
)
SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def test_scram_sha_256_computes_rfc_7677_s_client_proof_and_checks_the_server_signature() -> None:
    scram = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=CLIENT_NONCE)
    assert scram.first_message() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    assert scram.final_message(SERVER_FIRST) == CLIENT_FINAL
    scram.check_server_final(SERVER_FINAL)


def test_a_server_that_does_not_know_the_password_or_changes_the_nonce_is_refused() -> None:
    scram = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=CLIENT_NONCE)
    scram.final_message(SERVER_FIRST)
    with pytest.raises(SaslError, match="does not know the password"):
        scram.check_server_final(b"v=" + b"A" * 44)
    with pytest.raises(SaslError, match="invalid-proof"):
        scram.check_server_final(b"e=invalid-proof")
    with pytest.raises(SaslError, match="server-first"):
        ScramClient("SCRAM-SHA-256", "user", "pencil", nonce=CLIENT_NONCE).final_message(b"r=other,s=c2FsdA==,i=1")


def test_user_names_are_escaped_as_scram_requires() -> None:
    assert ScramClient("SCRAM-SHA-512", "a=b,c", "x", nonce="n").first_message() == b"n,,n=a=3Db=2Cc,r=n"


def test_a_login_is_read_from_librdkafka_keys_and_only_for_mechanisms_spoken_here() -> None:
    keys = {"sasl.username": "u", "sasl.password": "p"}
    assert SaslLogin.from_config({**keys, "sasl.mechanisms": "scram-sha-512"}) == SaslLogin("SCRAM-SHA-512", "u", "p")
    assert SaslLogin.from_config({**keys, "sasl.mechanism": "PLAIN"}) == SaslLogin("PLAIN", "u", "p")
    assert SaslLogin.from_config({**keys, "sasl.mechanisms": "OAUTHBEARER"}) is None
    assert SaslLogin.from_config(keys) is None  # librdkafka's default is GSSAPI
    assert SaslLogin.from_config({"sasl.mechanisms": "PLAIN"}) is None


Handler = Callable[[int, int, Reader], bytes]


def scripted_broker(handle: Handler) -> tuple[KafkaConnection, list[tuple[int, int]], threading.Thread]:
    """A connection whose other end answers each request with `handle(api_key, version, body)`."""
    ours, theirs = socket.socketpair()
    seen: list[tuple[int, int]] = []

    def serve() -> None:
        with theirs:
            while True:
                size_bytes = theirs.recv(4, socket.MSG_WAITALL)
                if len(size_bytes) < 4:
                    return
                request = Reader(theirs.recv(Reader(size_bytes).int32(), socket.MSG_WAITALL))
                api_key, version, correlation = request.int16(), request.int16(), request.int32()
                request.nullable_string()  # client id
                seen.append((api_key, version))
                answer = int32(correlation) + handle(api_key, version, request)
                theirs.sendall(int32(len(answer)) + answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return KafkaConnection(ours, "test"), seen, thread


def authenticate_answer(error: int, message: str | None, token: bytes) -> bytes:
    return struct.pack(">h", error) + nullable_string(message) + bytes_(token) + struct.pack(">q", 0)


def test_plain_sends_a_handshake_then_one_token_with_the_credentials() -> None:
    tokens: list[bytes] = []

    def handle(api_key: int, version: int, body: Reader) -> bytes:
        if api_key == 17:
            assert body.string() == "PLAIN"
            return struct.pack(">h", 0) + array([string("PLAIN")])
        tokens.append(body.bytes_())
        return authenticate_answer(0, None, b"")

    connection, seen, thread = scripted_broker(handle)
    with connection:
        SaslLogin("PLAIN", "alice", "s3cret").authenticate(connection)
    thread.join(5)
    assert seen == [(17, 1), (36, 1)]
    assert tokens == [b"\0alice\0s3cret"]


def test_a_refused_mechanism_or_password_is_an_error_naming_the_reason() -> None:
    def no_scram(api_key: int, version: int, body: Reader) -> bytes:
        return struct.pack(">h", 33) + array([string("PLAIN")])  # UNSUPPORTED_SASL_MECHANISM

    connection, _, thread = scripted_broker(no_scram)
    with connection, pytest.raises(SaslError, match="it takes PLAIN"):
        SaslLogin("SCRAM-SHA-256", "u", "p").authenticate(connection)
    thread.join(5)

    def wrong_password(api_key: int, version: int, body: Reader) -> bytes:
        if api_key == 17:
            return struct.pack(">h", 0) + array([string("PLAIN")])
        return authenticate_answer(58, "Authentication failed: Invalid username or password", b"")

    connection, _, thread = scripted_broker(wrong_password)
    with connection, pytest.raises(SaslError, match="Invalid username or password"):
        SaslLogin("PLAIN", "u", "bad").authenticate(connection)
    thread.join(5)
