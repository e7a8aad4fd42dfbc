"""The built-in authorizer's rules file: roles granted to users and groups on connector-name patterns.

```json
{
  "groups": {"team-a": ["alice", "bob"]},
  "grants": [
    {"to": ["group:team-a"], "role": "editor", "connectors": ["team-a-*"]},
    {"to": ["user:carol", "group:oncall"], "role": "operator", "connectors": ["*"]},
    {"to": ["user:root"], "role": "admin"}
  ]
}
```

Roles: `viewer`, `operator`, `editor` (each allowing what the one before it does, see `Permission`) on the
connectors whose names match one of the grant's patterns (`*` and `?` as in shell globs, whole name,
case-sensitive), and `admin` on everything. `to` names `user:<name>`, `group:<name>` or `user:*` (every
authenticated caller). A principal's groups are those the file lists it in and those its authenticator gave.
Anything the file does not grant is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import translate
from typing import Any

from rest.authorization.api import Permission

ROLES = {
    "viewer": Permission.VIEW,
    "operator": Permission.OPERATE,
    "editor": Permission.EDIT,
    "admin": Permission.ADMIN,
}
EVERY_USER = "user:*"


class RulesError(ValueError):
    """A rules file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Grant:
    subjects: frozenset[str]
    permission: Permission
    patterns: tuple[str, ...]  # empty for admin, who needs none


@dataclass
class Rules:
    groups: Mapping[str, frozenset[str]]  # user -> the groups the file lists it in
    grants: list[Grant]
    _by_subject: dict[str, list[Grant]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_subject = {}
        for grant in self.grants:
            for subject in grant.subjects:
                self._by_subject.setdefault(subject, []).append(grant)

    def grants_of(self, user: str, groups: Iterable[str]) -> list[Grant]:
        """Every grant naming `user`, one of its groups (given or listed here), or every user."""
        subjects = [f"user:{user}", EVERY_USER, *(f"group:{g}" for g in {*groups, *self.groups.get(user, ())})]
        found: list[Grant] = []
        for subject in subjects:
            found.extend(grant for grant in self._by_subject.get(subject, ()) if grant not in found)
        return found


class Entitlements:
    """What one principal may do, compiled once: per permission, the names and patterns that grant it (its own
    grants and those of every higher permission). Patterns are split by kind, so that the common ones cost C
    loops, not regular expressions: exact names (a set), `prefix*` (one `str.startswith` of a tuple), the rest
    one expression; and each answer is kept (`_CACHED_ANSWERS`), since lists ask about the same names again."""

    def __init__(self, grants: Iterable[Grant]) -> None:
        self.admin = False
        self.any_grant = False
        patterns: dict[Permission, list[str]] = {}
        for grant in grants:
            self.any_grant = True
            if grant.permission is Permission.ADMIN:
                self.admin = True
            patterns.setdefault(grant.permission, []).extend(grant.patterns)
        self._matchers: dict[Permission, _Matcher] = {}
        for permission in Permission:
            held = [p for other, found in patterns.items() if other.rank >= permission.rank for p in found]
            self._matchers[permission] = _Matcher(held)
        self._answers: dict[Permission, dict[str, bool]] = {permission: {} for permission in Permission}

    def allows(self, permission: Permission, connector: str) -> bool:
        if self.admin:
            return True
        answers = self._answers[permission]
        answer = answers.get(connector)
        if answer is None:
            answer = self._answer(permission, answers, connector)
        return answer

    def allowed(self, permission: Permission, connectors: Iterable[str]) -> set[str]:
        """Those of `connectors` this principal holds `permission` on (a list's check, in one loop)."""
        if self.admin:
            return set(connectors)
        answers = self._answers[permission]
        get = answers.get
        return {
            name for name in connectors if get(name) or (get(name) is None and self._answer(permission, answers, name))
        }

    def _answer(self, permission: Permission, answers: dict[str, bool], connector: str) -> bool:
        if len(answers) >= _CACHED_ANSWERS:
            answers.clear()
        answer = answers[connector] = self._matchers[permission].matches(connector)
        return answer


# Answers kept per principal; a new dict (not a trimmed one) when full, as entries cost little to recompute.
_CACHED_ANSWERS = 100_000
_WILDCARDS = frozenset("*?[")


class _Matcher:
    def __init__(self, patterns: Iterable[str]) -> None:
        exact: set[str] = set()
        prefixes: list[str] = []
        others: list[str] = []
        for pattern in patterns:
            head = pattern[:-1] if pattern.endswith("*") else None
            if not _WILDCARDS & set(pattern):
                exact.add(pattern)
            elif head is not None and not _WILDCARDS & set(head):
                prefixes.append(head)
            else:
                others.append(pattern)
        self._exact = frozenset(exact)
        self._prefixes = tuple(prefixes)
        self._others = re.compile("|".join(translate(p) for p in others)) if others else None

    def matches(self, name: str) -> bool:
        if name in self._exact or name.startswith(self._prefixes):
            return True
        return self._others is not None and self._others.match(name) is not None


def parse_rules(text: str, source: str) -> Rules:
    """`text` of the file `source` as Rules; RulesError naming the place of the first problem."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"{source} is not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise RulesError(f"{source}: expected an object with 'grants' (and 'groups'), got {_kind(document)}")
    unknown = sorted(set(document) - {"groups", "grants"})
    if unknown:
        raise RulesError(f"{source}: unknown key(s) {', '.join(unknown)}; expected 'grants' and 'groups'")
    groups = _groups(document.get("groups", {}), source)
    raw_grants = document.get("grants", [])
    if not isinstance(raw_grants, list):
        raise RulesError(f"{source}: 'grants' must be a list, got {_kind(raw_grants)}")
    grants = [_grant(raw, f"{source}: grants[{index}]") for index, raw in enumerate(raw_grants)]
    return Rules(groups, grants)


def _groups(raw: Any, source: str) -> dict[str, frozenset[str]]:
    if not isinstance(raw, dict):
        raise RulesError(f"{source}: 'groups' must map group names to lists of users, got {_kind(raw)}")
    members: dict[str, set[str]] = {}
    for group, users in raw.items():
        if not _strings(users):
            raise RulesError(f"{source}: groups.{group} must be a list of user names")
        for user in users:
            members.setdefault(user, set()).add(group)
    return {user: frozenset(found) for user, found in members.items()}


def _grant(raw: Any, where: str) -> Grant:
    if not isinstance(raw, dict):
        raise RulesError(f"{where}: expected an object with 'to', 'role' and 'connectors', got {_kind(raw)}")
    unknown = sorted(set(raw) - {"to", "role", "connectors"})
    if unknown:
        raise RulesError(f"{where}: unknown key(s) {', '.join(unknown)}; expected 'to', 'role' and 'connectors'")
    subjects = raw.get("to")
    if not _strings(subjects) or not subjects:
        raise RulesError(f"{where}: 'to' must be a non-empty list of 'user:<name>' or 'group:<name>'")
    for subject in subjects:
        kind, _, name = subject.partition(":")
        if kind not in ("user", "group") or not name:
            raise RulesError(f"{where}: '{subject}' is neither 'user:<name>' nor 'group:<name>'")
    role = raw.get("role")
    permission = ROLES.get(role) if isinstance(role, str) else None
    if permission is None:
        raise RulesError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
    patterns = raw.get("connectors")
    if permission is Permission.ADMIN:
        if patterns is not None:
            raise RulesError(f"{where}: admin is granted on the whole cluster; remove 'connectors'")
        return Grant(frozenset(subjects), permission, ())
    if not _strings(patterns) or not patterns:
        raise RulesError(f"{where}: role {role} needs 'connectors', a non-empty list of name patterns")
    return Grant(frozenset(subjects), permission, tuple(patterns))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item for item in value)


def _kind(value: Any) -> str:
    return type(value).__name__ if value is not None else "null"
