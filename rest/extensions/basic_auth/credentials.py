"""The credentials of Kafka's `PropertyFileLoginModule`: a Java properties file of `user: password` lines,
and how a JAAS section of such modules decides a login.

Each file is read once, at start-up (Kafka reads it at the first login and caches it too: an edit needs
a restart). A password is checked in constant time: both sides are hashed to equal-length digests and
compared with `hmac.compare_digest`, and an unknown user is checked against a dummy digest, so timing
tells neither the password's length nor whether the user exists.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from pathlib import Path

from connect.api.errors import ConfigError
from connect.runtime.config.java_properties import read_properties

_UNKNOWN_USER = hashlib.sha256(b"no such user").digest()


def _digest(password: str) -> bytes:
    return hashlib.sha256(password.encode("utf-8")).digest()


@dataclass(frozen=True)
class CredentialsFile:
    path: Path
    _digests: dict[str, bytes] = field(repr=False)

    @classmethod
    def read(cls, path: Path, jaas_file: Path) -> CredentialsFile:
        """ConfigError naming both files if it cannot be read or names no user (Kafka would then let every
        request in; kconnect refuses to start instead)."""
        try:
            users = read_properties(path)
        except OSError as exc:
            raise ConfigError(
                f"Cannot read the credentials file '{path}' named by the JAAS file '{jaas_file}': {exc.strerror}"
            ) from exc
        if not users:
            raise ConfigError(
                f"The credentials file '{path}' named by the JAAS file '{jaas_file}' has no users. Kafka Connect "
                "would accept every request; kconnect refuses to start. Add `user: password` lines."
            )
        return cls(path, {user: _digest(password) for user, password in users.items()})

    def check(self, user: str, password: str) -> bool:
        expected = self._digests.get(user)
        matches = hmac.compare_digest(_digest(password), expected if expected is not None else _UNKNOWN_USER)
        return matches and expected is not None


@dataclass(frozen=True)
class FlaggedModule:
    flag: str  # a JAAS control flag
    credentials: CredentialsFile


def jaas_login(modules: list[FlaggedModule], user: str, password: str) -> bool:
    """Java's `LoginContext` rules over the section's modules: every `required`/`requisite` one must accept
    (a failing `requisite` ends the login), a `sufficient` one that accepts ends it with success when no
    required one failed before; without required/requisite modules, at least one module must accept."""
    required_failed = False
    any_accepted = False
    has_required = any(m.flag in ("required", "requisite") for m in modules)
    for module in modules:
        accepted = module.credentials.check(user, password)
        any_accepted = any_accepted or accepted
        if module.flag in ("required", "requisite") and not accepted:
            required_failed = True
            if module.flag == "requisite":
                return False
        elif module.flag == "sufficient" and accepted and not required_failed:
            return True
    return not required_failed if has_required else any_accepted
