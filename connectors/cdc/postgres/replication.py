"""One logical replication connection: a pgoutput slot streamed from a position, and confirmed up to what
Kafka has committed.

psycopg2's `LogicalReplicationConnection` is the one maintained Python driver that speaks the streaming
replication protocol. The server starts a stream at the later of the requested position and the slot's
`confirmed_flush_lsn`, and keeps every WAL segment from the slot's `restart_lsn` on: so the slot is
confirmed (`flush` in a standby status update) only up to a commit whose changes Kafka has acknowledged,
and a restart resumes from there. psycopg2 answers the server's keepalives itself, every
`status_interval` or when asked; when everything received has been confirmed it also reports the server's
current position as flushed, which lets an idle slot release WAL without giving anything up.

A connection is not thread-safe: only the thread that reads calls this object. Other threads hand a
position to `confirm_later`, which the reader sends with its next read.
"""

from __future__ import annotations

import dataclasses
import select
import threading
import time
from collections.abc import Mapping
from typing import Any

import psycopg2
import psycopg2.extras

from connectors.cdc.postgres.pgoutput import Message, decode, format_lsn, parse_lsn

PROTOCOL_VERSION = "1"
# Text output the decoders can rely on, whatever the server's or the role's settings (walsenders format
# values with their own settings).
SESSION_OPTIONS = (
    "-c DateStyle=ISO -c TimeZone=UTC -c extra_float_digits=3 -c bytea_output=hex -c IntervalStyle=postgres"
)


@dataclasses.dataclass(frozen=True)
class WalMessage:
    """A decoded pgoutput message and where the server said it sits: `data_start` is the change's LSN (a
    Begin's: the transaction's first; a Commit's: the end of its commit record)."""

    data_start: int
    wal_end: int
    message: Message


@dataclasses.dataclass(frozen=True)
class CreatedSlot:
    consistent_point: int  # the stream of the new slot starts here: every transaction after it, none before
    snapshot_name: str | None  # a snapshot of the database at that point, usable until the next command


class ReplicationStream:
    """A pgoutput slot of one database, streamed from `start` and confirmed through `confirm_later`."""

    def __init__(
        self,
        connection_params: Mapping[str, Any],
        slot: str,
        publications: list[str],
        *,
        messages: bool = True,
        status_interval_s: float = 10.0,
    ) -> None:
        params = dict(connection_params)
        params["options"] = f"{params.get('options', '')} {SESSION_OPTIONS}".strip()
        self._connection: Any = psycopg2.connect(
            **params, connection_factory=psycopg2.extras.LogicalReplicationConnection
        )
        self._cursor: Any = self._connection.cursor()
        self.slot = slot
        self._options = {
            "proto_version": PROTOCOL_VERSION,
            "publication_names": ",".join(f'"{name}"' for name in publications),
            "messages": "true" if messages else "false",
        }
        self._status_interval_s = status_interval_s
        self._pending_confirm: int | None = None
        self._confirmed = 0
        self._lock = threading.Lock()

    def create_slot(self) -> CreatedSlot:
        """Create the slot; the snapshot it exports lives until the next command on this connection."""
        self._cursor.execute(f'CREATE_REPLICATION_SLOT "{self.slot}" LOGICAL pgoutput')
        _name, consistent_point, snapshot_name, _plugin = self._cursor.fetchone()
        return CreatedSlot(parse_lsn(consistent_point), snapshot_name)

    def start(self, start_lsn: int = 0) -> None:
        """Stream from `start_lsn` (0: from where the slot was confirmed)."""
        self._cursor.start_replication(
            slot_name=self.slot,
            start_lsn=format_lsn(start_lsn),
            options=self._options,
            decode=False,
            status_interval=self._status_interval_s,
        )

    def read(self, timeout_s: float, max_messages: int = 2048) -> list[WalMessage]:
        """The messages that arrive within `timeout_s` (at most `max_messages`; fewer as soon as none is
        waiting once one has come). Sends a pending confirmation first."""
        self._send_pending_confirm()
        found: list[WalMessage] = []
        deadline = time.monotonic() + timeout_s
        while len(found) < max_messages:
            raw = self._cursor.read_message()
            if raw is not None:
                found.append(WalMessage(raw.data_start, raw.wal_end, decode(raw.payload)))
                continue
            left = deadline - time.monotonic()
            if found or left <= 0:
                break
            select.select([self._cursor], [], [], left)
        return found

    def confirm_later(self, lsn: int) -> None:
        """Ask the reader to confirm the slot up to `lsn` (never backwards); any thread."""
        with self._lock:
            if lsn > max(self._confirmed, self._pending_confirm or 0):
                self._pending_confirm = lsn

    def _send_pending_confirm(self) -> None:
        with self._lock:
            lsn, self._pending_confirm = self._pending_confirm, None
        if lsn is not None:
            self._cursor.send_feedback(write_lsn=lsn, flush_lsn=lsn, apply_lsn=lsn, force=True)
            self._confirmed = lsn

    @property
    def confirmed(self) -> int:
        """The last position confirmed to the server by this stream."""
        return self._confirmed

    def close(self) -> None:
        self._connection.close()
