"""`RoleAuthorizer`: kconnect's built-in authorizer, granting roles from a rules file (`rest.authorization.rules`).

`rest.authorizer.rules.file` names the file. It is read at start-up (a missing or bad file stops the worker
with the reason) and again whenever it changes, checked every `rest.authorizer.rules.reload.ms` (1 s): each
worker reads its own copy, like the JAAS file of the basic-auth extension beside it, so the rules are in
force before a worker answers its first request and in standalone mode too, and no REST caller can
change them. A changed file that cannot be used is logged (once) and the rules in force stay; a file that
disappears leaves them in force too (nobody is locked out, nobody gains anything). A file read while it is
being written is read again at the next check; write it whole and rename it into place to be sure.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from connect.api.errors import ConfigError
from rest.authorization.api import Authorizer, Operation, Permission, Resource
from rest.authorization.rules import Entitlements, Rules, RulesError, parse_rules
from rest.extensions.api import Principal

log = logging.getLogger(__name__)

RULES_FILE = "rest.authorizer.rules.file"
RELOAD_MS = "rest.authorizer.rules.reload.ms"
DEFAULT_RELOAD_MS = 1000
# Principals whose entitlements are kept compiled; the cache is emptied on every reload.
_CACHED_PRINCIPALS = 4096


class RoleAuthorizer(Authorizer):
    def __init__(self) -> None:
        self._path: Path | None = None
        self._rules = Rules({}, [])
        self._stamp: tuple[int, int, int] | None = None
        self._refused: tuple[int, int, int] | None = None  # the stamp of a version of the file found unusable
        self._reported = ""  # the last problem logged
        self._entitlements: dict[tuple[str, frozenset[str]], Entitlements] = {}
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        value = (configs.get(RULES_FILE) or "").strip()
        if not value:
            raise ConfigError(f"{RULES_FILE} must name the rules file of the RoleAuthorizer (rest.authorizer.class)")
        interval_ms = _reload_ms(configs.get(RELOAD_MS))
        self._path = Path(value)
        try:
            while not self._load():  # written to as the worker starts: read it once it holds still
                time.sleep(0.05)
        except (OSError, RulesError) as exc:
            raise ConfigError(f"{RULES_FILE}: {_reason(exc)}") from None
        self._watcher = threading.Thread(
            target=self._watch, args=(interval_ms / 1000,), name="rest-authorizer-rules", daemon=True
        )
        self._watcher.start()

    def authorize(self, principal: Principal, operation: Operation, resource: Resource) -> bool:
        required = operation.permission
        if required is None:
            return True
        entitlements = self._entitlements_of(principal)
        if resource.connector is not None:
            return entitlements.allows(required, resource.connector)
        if required is Permission.VIEW:
            return entitlements.any_grant  # cluster reads: anyone granted anything
        return entitlements.admin

    def allowed_connectors(self, principal: Principal, operation: Operation, connectors: Iterable[str]) -> set[str]:
        required = operation.permission
        if required is None:
            return set(connectors)
        return self._entitlements_of(principal).allowed(required, connectors)

    def close(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(5)

    def _entitlements_of(self, principal: Principal) -> Entitlements:
        key = (principal.name, principal.groups)
        found = self._entitlements.get(key)
        if found is None:
            if len(self._entitlements) >= _CACHED_PRINCIPALS:
                self._entitlements = {}
            found = Entitlements(self._rules.grants_of(principal.name, principal.groups))
            self._entitlements[key] = found
        return found

    def _load(self) -> bool:
        """Read the file; False (nothing changed) when it changed while being read: a write still going on,
        read again at the next check rather than taken half-written."""
        assert self._path is not None
        stamp = _stamp(self._path)
        text = self._path.read_text(encoding="utf-8")
        if _stamp(self._path) != stamp:
            return False
        try:
            rules = parse_rules(text, str(self._path))
        except RulesError:
            self._refused = stamp
            raise
        # Replaced whole, never changed in place: a request on the event loop sees the old or the new rules.
        self._rules, self._stamp, self._entitlements = rules, stamp, {}
        return True

    def check(self) -> None:
        """Read the rules file again if it changed (the watcher calls this every reload interval)."""
        assert self._path is not None
        try:
            if _stamp(self._path) in (self._stamp, self._refused) or not self._load():
                return
        except (OSError, RulesError) as exc:
            if _reason(exc) != self._reported:  # each problem logged once, not at every check
                self._reported = _reason(exc)
                log.error("Authorization rules not reloaded, the rules in force stay: %s", self._reported)
            return
        self._reported = ""
        log.info("Authorization rules reloaded from %s (%d grants)", self._path, len(self._rules.grants))

    def _watch(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.check()


def _stamp(path: Path) -> tuple[int, int, int]:
    status = os.stat(path)
    return status.st_mtime_ns, status.st_size, status.st_ino


def _reload_ms(value: str | None) -> int:
    if value is None or not str(value).strip():
        return DEFAULT_RELOAD_MS
    try:
        parsed = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{RELOAD_MS}: '{value}' is not a whole number of milliseconds") from None
    if parsed < 10:
        raise ConfigError(f"{RELOAD_MS}: {parsed} is below the least interval, 10 ms")
    return parsed


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return f"cannot read {exc.filename}: {exc.strerror}"
    return str(exc)
