"""The built-in authorizer's rules: roles on name patterns, groups, and the errors a bad file gets."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from rest.authorization.api import CLUSTER, Operation, Permission, Resource
from rest.authorization.role_authorizer import RoleAuthorizer
from rest.authorization.rules import Entitlements, RulesError, parse_rules
from rest.extensions.api import Principal

RULES = {
    "groups": {"team-a": ["alice", "bob"]},
    "grants": [
        {"to": ["group:team-a"], "role": "editor", "connectors": ["team-a-*"]},
        {"to": ["user:carol"], "role": "operator", "connectors": ["team-a-*", "shared-??", "billing", "[xy]-*-log"]},
        {"to": ["user:*"], "role": "viewer", "connectors": ["public-*"]},
        {"to": ["user:root", "group:admins"], "role": "admin"},
    ],
}


def entitlements(user: str, groups: frozenset[str] = frozenset()) -> Entitlements:
    rules = parse_rules(json.dumps(RULES), "rules.json")
    return Entitlements(rules.grants_of(user, groups))


def test_a_role_allows_what_the_roles_below_it_allow_on_its_patterns_only() -> None:
    alice = entitlements("alice")
    for permission in (Permission.VIEW, Permission.OPERATE, Permission.EDIT):
        assert alice.allows(permission, "team-a-orders")
        assert not alice.allows(permission, "team-b-orders")
    assert not alice.allows(Permission.ADMIN, "team-a-orders")
    carol = entitlements("carol")
    assert carol.allows(Permission.OPERATE, "shared-01") and not carol.allows(Permission.OPERATE, "shared-001")
    assert carol.allows(Permission.VIEW, "team-a-x") and not carol.allows(Permission.EDIT, "team-a-x")
    # Exact names, `prefix*` and the other patterns are matched apart; each the whole name.
    assert carol.allows(Permission.OPERATE, "billing") and not carol.allows(Permission.OPERATE, "billing-2")
    assert carol.allows(Permission.OPERATE, "x-eu-log") and not carol.allows(Permission.OPERATE, "z-eu-log")
    assert not carol.allows(Permission.OPERATE, "x-eu-log-old")
    assert carol.allowed(Permission.OPERATE, ["billing", "shared-01", "other", "team-a-1"]) == {
        "billing",
        "shared-01",
        "team-a-1",
    }


def test_patterns_match_whole_names_and_every_user_gets_the_grants_to_everyone() -> None:
    nobody = entitlements("nobody")
    assert nobody.allows(Permission.VIEW, "public-feed")
    assert not nobody.allows(Permission.VIEW, "not-public-feed")
    assert not nobody.allows(Permission.OPERATE, "public-feed")
    assert nobody.any_grant and not nobody.admin


def test_groups_come_from_the_file_and_from_the_authenticator() -> None:
    assert entitlements("bob").allows(Permission.EDIT, "team-a-x")
    assert entitlements("dave", frozenset({"team-a"})).allows(Permission.EDIT, "team-a-x")
    assert entitlements("erin", frozenset({"admins"})).admin


def test_admin_may_do_everything_everywhere() -> None:
    root = entitlements("root")
    assert root.admin and root.allows(Permission.ADMIN, "anything") and root.allows(Permission.EDIT, "x")


def test_an_operation_names_the_permission_the_roles_give() -> None:
    assert Operation.CONNECTOR_DELETE.permission is Permission.EDIT
    assert Operation.CONNECTOR_OPERATE.permission is Permission.OPERATE
    assert Operation.LOGGERS_WRITE.permission is Permission.ADMIN
    assert Operation.HEALTH.permission is None
    assert Resource("x").describe() == "connector 'x'" and CLUSTER.describe() == "the cluster"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{", r"rules.json is not JSON"),
        ("[]", r"expected an object with 'grants'"),
        ('{"grant": []}', r"unknown key\(s\) grant"),
        ('{"grants": {}}', r"'grants' must be a list"),
        ('{"groups": {"a": "alice"}}', r"groups.a must be a list of user names"),
        ('{"grants": [{"to": ["alice"], "role": "viewer", "connectors": ["*"]}]}', r"'alice' is neither"),
        ('{"grants": [{"to": [], "role": "viewer", "connectors": ["*"]}]}', r"grants\[0\]: 'to' must be"),
        ('{"grants": [{"to": ["user:a"], "role": "owner", "connectors": ["*"]}]}', r"role 'owner' is not one of"),
        ('{"grants": [{"to": ["user:a"], "role": "viewer"}]}', r"role viewer needs 'connectors'"),
        ('{"grants": [{"to": ["user:a"], "role": "admin", "connectors": ["*"]}]}', r"remove 'connectors'"),
        ('{"grants": [{"to": ["user:a"], "role": "viewer", "connectors": ["*"], "x": 1}]}', r"unknown key\(s\) x"),
    ],
)
def test_a_bad_rules_file_is_refused_with_where_and_why(document: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules(document, "rules.json")


def test_a_broken_rules_file_is_logged_once_and_its_fix_is_taken(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES))
    authorizer = RoleAuthorizer()
    # A long interval: the test makes the checks itself.
    authorizer.configure({"rest.authorizer.rules.file": str(rules), "rest.authorizer.rules.reload.ms": "600000"})
    try:
        rules.write_text('{"grants": [{"to": ["user:carol"], "role": "owner", "connectors": ["*"]}]}')
        with caplog.at_level(logging.ERROR, logger="rest.authorization"):
            for _ in range(3):
                authorizer.check()
        assert caplog.text.count("role 'owner' is not one of") == 1
        carol = Principal("carol", "BASIC")
        assert authorizer.authorize(carol, Operation.CONNECTOR_OPERATE, Resource("team-a-x")), "old rules stay"
        rules.write_text(json.dumps({"grants": [{"to": ["user:carol"], "role": "viewer", "connectors": ["*"]}]}))
        authorizer.check()
        assert not authorizer.authorize(carol, Operation.CONNECTOR_OPERATE, Resource("team-a-x"))
        assert authorizer.authorize(carol, Operation.CONNECTOR_READ, Resource("team-a-x"))
    finally:
        authorizer.close()
