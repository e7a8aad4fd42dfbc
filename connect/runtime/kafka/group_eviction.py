"""Evicting a consumer-group member that is known to be gone, so its group rebalances now.

Kafka's group coordinator notices a dead member only when its session expires (`session.timeout.ms`, 10 s
for Kafka Connect's workers, 45 s for consumers); until then its partitions go to nobody. When the worker
knows better (the member's process is gone, or a task's new instance replaces it), it sends the
coordinator a LeaveGroup on the member's behalf: since KIP-345, LeaveGroup (version 3 and later) names the
members that leave, and the coordinator removes any member named, whoever asks. Nothing is given up: an
evicted member that is in fact alive is fenced exactly as after a session expiry (its heartbeats and
offset commits are refused with UNKNOWN_MEMBER_ID) and rejoins.

librdkafka sends LeaveGroup only for itself and has no admin call for it (Java's
`Admin.removeMembersFromConsumerGroup` works only for static members), so this module speaks the three
requests it needs itself (FindCoordinator v1, DescribeGroups v1, LeaveGroup v3: none of them flexible, all
served by Kafka 2.4 and later), over TLS (`kafka_tls.py`) and after a SASL login (`kafka_sasl.py`: PLAIN,
SCRAM) where the listener wants them, with the settings of the worker's own clients. A listener that wants
a login not spoken here (GSSAPI, OAUTHBEARER) is not used: `supported()` says so, and the caller falls back
to the session timeout.
"""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect.api.errors import ConfigError
from connect.runtime.kafka.kafka_sasl import SaslError, SaslLogin
from connect.runtime.kafka.kafka_tls import tls_context
from connect.runtime.kafka.kafka_wire import KafkaConnection, array, int8, nullable_string, string

log = logging.getLogger(__name__)

_FIND_COORDINATOR, _DESCRIBE_GROUPS, _LEAVE_GROUP = 10, 15, 13
_GROUP_KEY = 0
_NONE = 0
_TIMEOUT_S = 3.0
_TLS = frozenset({"ssl", "sasl_ssl"})
_SASL = frozenset({"sasl_plaintext", "sasl_ssl"})
_PROTOCOLS = frozenset({"plaintext", *_TLS, *_SASL})


@dataclass(frozen=True)
class GroupMember:
    member_id: str
    client_id: str


class GroupEvictionError(Exception):
    """The coordinator could not be found or answered with an error."""


class GroupEviction:
    """Finds and evicts members of consumer groups on the cluster of `config` (librdkafka names:
    `bootstrap.servers`, `security.protocol`, `ssl.*`, `sasl.*`)."""

    def __init__(self, config: Mapping[str, str], client_id: str = "kconnect-group-eviction") -> None:
        self._bootstrap = [_address(entry) for entry in config.get("bootstrap.servers", "").split(",") if entry.strip()]
        self._protocol = config.get("security.protocol", "plaintext").strip().lower()
        self._client_id = client_id
        self._login = SaslLogin.from_config(config) if self._protocol in _SASL else None
        self._tls: ssl.SSLContext | None = None
        self.unsupported_reason = self._check(config)

    def _check(self, config: Mapping[str, str]) -> str | None:
        if not self._bootstrap:
            return "no bootstrap.servers"
        if self._protocol not in _PROTOCOLS:
            return f"security.protocol {self._protocol} is not known"
        if self._protocol in _SASL and self._login is None:
            mechanism = config.get("sasl.mechanisms") or config.get("sasl.mechanism") or "GSSAPI"
            return f"SASL mechanism {mechanism} is not spoken here (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)"
        if self._protocol in _TLS:
            try:
                self._tls = tls_context(config)
            except (ConfigError, ssl.SSLError, OSError) as exc:
                return f"its TLS settings cannot be loaded ({exc})"
        return None

    def supported(self) -> bool:
        """False where the cluster's listener cannot be spoken to (`unsupported_reason` says why)."""
        return self.unsupported_reason is None

    def evict(self, group: str, which: Callable[[GroupMember], bool]) -> list[GroupMember]:
        """Evict the members of `group` for which `which` is true; the members evicted (none: nothing to do).
        GroupEvictionError if the coordinator cannot be asked."""
        with self._coordinator(group) as coordinator:
            chosen = [member for member in _describe(coordinator, group) if which(member)]
            if chosen:
                _leave(coordinator, group, chosen)
        return chosen

    def members(self, group: str) -> list[GroupMember]:
        with self._coordinator(group) as coordinator:
            return _describe(coordinator, group)

    def _coordinator(self, group: str) -> KafkaConnection:
        last: Exception | None = None
        for address in self._bootstrap:
            try:
                with self._connect(address) as bootstrap:
                    host, port = _find_coordinator(bootstrap, group)
            except (OSError, GroupEvictionError) as exc:
                last = exc
                continue
            return self._connect((host, port))
        raise GroupEvictionError(f"no broker of {self._bootstrap} named the coordinator of group {group}: {last}")

    def _connect(self, address: tuple[str, int]) -> KafkaConnection:
        sock = socket.create_connection(address, timeout=_TIMEOUT_S)
        if self._tls is not None:
            try:
                sock = self._tls.wrap_socket(sock, server_hostname=address[0])
            except OSError:
                sock.close()
                raise
        connection = KafkaConnection(sock, self._client_id)
        if self._login is not None:
            try:
                self._login.authenticate(connection)
            except (SaslError, OSError) as exc:
                connection.close()
                raise GroupEvictionError(f"logging in to {address[0]}:{address[1]}: {exc}") from exc
        return connection


def _find_coordinator(connection: KafkaConnection, group: str) -> tuple[str, int]:
    answer = connection.request(_FIND_COORDINATOR, 1, string(group) + int8(_GROUP_KEY))
    answer.int32()  # throttle_time_ms
    error, message = answer.int16(), answer.nullable_string()
    answer.int32()  # node_id
    host, port = answer.string(), answer.int32()
    if error != _NONE:
        raise GroupEvictionError(f"FindCoordinator for group {group}: error {error} {message or ''}".strip())
    return host, port


def _describe(connection: KafkaConnection, group: str) -> list[GroupMember]:
    answer = connection.request(_DESCRIBE_GROUPS, 1, array([string(group)]))
    answer.int32()  # throttle_time_ms
    members: list[GroupMember] = []
    for _ in range(answer.int32()):
        error = answer.int16()
        answer.string(), answer.string(), answer.string(), answer.string()  # group, state, protocol type, protocol
        for _ in range(answer.int32()):
            member_id, client_id = answer.string(), answer.string()
            answer.string(), answer.bytes_(), answer.bytes_()  # client host, metadata, assignment
            members.append(GroupMember(member_id, client_id))
        if error != _NONE:
            raise GroupEvictionError(f"DescribeGroups for group {group}: error {error}")
    return members


def _leave(connection: KafkaConnection, group: str, members: list[GroupMember]) -> None:
    body = string(group) + array([string(member.member_id) + nullable_string(None) for member in members])
    answer = connection.request(_LEAVE_GROUP, 3, body)
    answer.int32()  # throttle_time_ms
    error = answer.int16()
    if error != _NONE:
        raise GroupEvictionError(f"LeaveGroup for group {group}: error {error}")
    for _ in range(answer.int32()):
        member_id, _instance = answer.string(), answer.nullable_string()
        member_error = answer.int16()
        # UNKNOWN_MEMBER_ID (25): it left, or someone else evicted it first; either way it is gone.
        if member_error not in (_NONE, 25):
            log.warning("Evicting member %s of group %s: error %d", member_id, group, member_error)


def _address(entry: str) -> tuple[str, int]:
    entry = entry.strip()
    if "://" in entry:
        entry = entry.split("://", 1)[1]
    host, _, port = entry.rpartition(":")
    return host.strip("[]"), int(port)
