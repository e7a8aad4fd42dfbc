"""Keeping resolved secrets out of what the worker shows: status traces, validation output and logs.

`SecretRedactor` holds every value a config provider substituted (and the values of PASSWORD keys it was
told about) and replaces them with `[hidden]` in any text. It is applied to the traces the Worker reports
(`RedactingStatusListener`), to `/validate` output, and, through `RedactingFilter` that the process entry
point puts on its log handlers, to every log record: a connector that logs or raises with a secret in
the message does not leak it. Values shorter than `MIN_LENGTH` are not searched for in free text (a
2-character secret would garble every line); they are still never shown by the REST API.
"""

from __future__ import annotations

import logging
import re
import threading
import traceback
from collections.abc import Iterable

HIDDEN = "[hidden]"
MIN_LENGTH = 4


class SecretRedactor:
    """Thread-safe: the Worker adds secrets from any thread while other threads redact."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: frozenset[str] = frozenset()
        self._pattern: re.Pattern[str] | None = None

    def add(self, secrets: Iterable[str]) -> None:
        new = {s for s in secrets if len(s) >= MIN_LENGTH}
        with self._lock:
            if new <= self._secrets:
                return
            self._secrets = self._secrets | new
            # Longest first, so a secret that contains another is hidden whole.
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def redact(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None or not text:
            return text
        return pattern.sub(HIDDEN, text)

    def __bool__(self) -> bool:
        return self._pattern is not None


class RedactingFilter(logging.Filter):
    """A handler filter that redacts the formatted message and exception text of each record."""

    def __init__(self, redactor: SecretRedactor) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._redactor:
            return True
        message = record.getMessage()
        redacted = self._redactor.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None:
            text = "".join(traceback.format_exception(*record.exc_info))
            redacted_text = self._redactor.redact(text)
            if redacted_text != text:
                record.exc_info, record.exc_text = None, redacted_text.rstrip("\n")
        elif record.exc_text:
            record.exc_text = self._redactor.redact(record.exc_text)
        return True
