"""An audit record, built from what the request asked, how it was answered, and the config before and after.

```json
{"id": "5f0c…", "time": "2026-12-07T23:40:00.123Z", "worker": "10.0.0.5:8083", "user": "alice",
 "client": "10.0.0.9:51234", "action": "connector.patch", "connector": "orders-sink",
 "request": "PATCH /connectors/orders-sink/config", "status": 200, "outcome": "success",
 "diff": {"changed": {"batch.size": {"from": "100", "to": "500"}}, "added": {}, "removed": {}}}
```

`outcome` is `success` (2xx/3xx), `refused` (the authorizer said no) or `failed` (any other error, with the
answer's `message`). Secret values appear nowhere: configs are diffed as a viewer sees them (`[hidden]`),
and a secret of the request quoted in an error message is hidden too.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from connect.runtime.config.providers import HIDDEN, SecretRedactor

REFUSAL_MARK = "may not perform"


@dataclass
class Exchange:
    """One change request and its answer, as the audit layer saw them."""

    method: str
    path: str
    action: str
    connector: str | None
    user: str | None
    client: str | None
    status: int
    answer: bytes
    details: dict[str, Any] = field(default_factory=dict)


def audit_record(
    exchange: Exchange,
    worker: str,
    before: Mapping[str, str] | None,
    after: Mapping[str, str] | None,
    secrets: Iterable[str],
    hide: Callable[[Mapping[str, str]], Mapping[str, str]],
) -> dict[str, Any]:
    """The record of `exchange`; `hide` gives a config with its secret values `[hidden]`."""
    record: dict[str, Any] = {
        "id": uuid.uuid4().hex,
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "worker": worker,
        "user": exchange.user,
        "client": exchange.client,
        "action": exchange.action,
        "connector": exchange.connector,
        "request": f"{exchange.method} {exchange.path}",
        "status": exchange.status,
        "outcome": _outcome(exchange),
    }
    if exchange.status >= 400:
        redactor = SecretRedactor()
        redactor.add(s for s in secrets if s != HIDDEN)
        record["message"] = redactor.redact(_message(exchange.answer))
    if exchange.details:
        record["details"] = exchange.details
    if exchange.status < 400 and (before is not None or after is not None):
        record["diff"] = config_diff(before, after, hide)
    return record


def config_diff(
    before: Mapping[str, str] | None,
    after: Mapping[str, str] | None,
    hide: Callable[[Mapping[str, str]], Mapping[str, str]],
) -> dict[str, Any]:
    """What changed, told from the real values (a changed secret is a change) and shown hidden."""
    old, new = before or {}, after or {}
    shown_old, shown_new = hide(old), hide(new)
    return {
        "added": {key: shown_new[key] for key in sorted(new.keys() - old.keys())},
        "removed": {key: shown_old[key] for key in sorted(old.keys() - new.keys())},
        "changed": {
            key: {"from": shown_old[key], "to": shown_new[key]}
            for key in sorted(old.keys() & new.keys())
            if old[key] != new[key]
        },
    }


def _outcome(exchange: Exchange) -> str:
    if exchange.status < 400:
        return "success"
    if exchange.status == 403 and REFUSAL_MARK in _message(exchange.answer):
        return "refused"
    return "failed"


def _message(answer: bytes) -> str:
    try:
        body = json.loads(answer or b"null")
    except (ValueError, UnicodeDecodeError):
        return answer[:500].decode("utf-8", errors="replace")
    message = body.get("message") if isinstance(body, dict) else None
    return message if isinstance(message, str) else ""
