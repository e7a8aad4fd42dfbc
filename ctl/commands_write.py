"""The verbs that change a connector: `apply`, `patch`, `validate`, `pause|resume|stop|restart`, `delete`.

`apply` is idempotent: it compares the file with the connector's current config and says Created,
Updated or Unchanged (Unchanged sends nothing). `validate` and `apply --dry-run` call Kafka's
`PUT /connector-plugins/{class}/config/validate` and list the per-field errors; errors are exit 1.
"""

from __future__ import annotations

from typing import Any

from ctl.client import ConnectClient, segment
from ctl.connector_files import ConnectorDefinition
from ctl.errors import InvalidConfigError, NotFoundError, UsageError
from ctl.output import render, table


def current_config(client: ConnectClient, name: str) -> dict[str, str] | None:
    """The connector's config, None if there is no such connector."""
    try:
        config: dict[str, str] = client.call("GET", f"/connectors/{segment(name)}/config")
    except NotFoundError:
        return None
    return config


def apply(client: ConnectClient, definition: ConnectorDefinition, *, dry_run: bool, output: str) -> str:
    """Create or update the connector; `dry_run` validates only and says what apply would do."""
    existing = current_config(client, definition.name)
    verb = "Created" if existing is None else "Unchanged" if existing == definition.config else "Updated"
    if dry_run:
        validation = validate(client, definition.config, output)
        return f"{validation}\nDry run: connector {definition.name} would be {verb.lower()}"
    if verb != "Unchanged":
        client.call("PUT", f"/connectors/{segment(definition.name)}/config", body=definition.config)
    return f"{verb} connector {definition.name}"


def patch(client: ConnectClient, name: str, sets: list[str], removes: list[str]) -> str:
    """Merge `k=v` settings into the connector's config, drop `removes`, and put it back if it changed."""
    existing = current_config(client, name)
    if existing is None:
        raise NotFoundError(f"Connector {name} not found")
    patched = dict(existing)
    for setting in sets:
        key, separator, value = setting.partition("=")
        if not separator or not key:
            raise UsageError(f"--set takes key=value, not '{setting}'")
        patched[key] = value
    for key in removes:
        patched.pop(key, None)
    if patched == existing:
        return f"Unchanged connector {name}"
    client.call("PUT", f"/connectors/{segment(name)}/config", body=patched)
    return f"Updated connector {name}"


def validate(client: ConnectClient, config: dict[str, str], output: str) -> str:
    """Validate `config` with its plug-in; ClusterError (exit 1) carrying the field errors if any."""
    connector_class = config.get("connector.class")
    if not connector_class:
        raise UsageError("The config has no 'connector.class' to validate against")
    result: dict[str, Any] = client.call(
        "PUT", f"/connector-plugins/{segment(connector_class)}/config/validate", body=config
    )
    errors = field_errors(result)
    text = render(result, output, lambda _: _errors_text(errors, config.get("name", connector_class)))
    if errors:
        raise InvalidConfigError(f"Invalid config: {len(errors)} field error(s)", text)
    return text


def field_errors(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for every error of a validate answer, in its order."""
    errors = []
    for entry in result.get("configs", []):
        value = entry.get("value", {})
        errors += [(str(value.get("name")), str(message)) for message in value.get("errors", [])]
    return errors


def _errors_text(errors: list[tuple[str, str]], name: str) -> str:
    if not errors:
        return f"Config of {name} is valid"
    heading = f"Config of {name} has {len(errors)} error{'s' if len(errors) > 1 else ''}:"
    return heading + "\n" + table(("field", "error"), errors)


def lifecycle(client: ConnectClient, verb: str, name: str) -> str:
    """`PUT /connectors/{c}/pause|resume|stop`."""
    client.call("PUT", f"/connectors/{segment(name)}/{verb}")
    done = {"pause": "Paused", "resume": "Resumed", "stop": "Stopped"}[verb]
    return f"{done} connector {name}"


def restart_connector(client: ConnectClient, name: str, tasks: str | None, output: str) -> str:
    """`POST /connectors/{c}/restart?includeTasks=&onlyFailed=` (KIP-745); shows the status it answers."""
    params = {"includeTasks": str(tasks is not None).lower(), "onlyFailed": str(tasks == "failed").lower()}
    status = client.call("POST", f"/connectors/{segment(name)}/restart", params=params)
    which = {None: "", "all": " and all its tasks", "failed": " and its failed tasks"}[tasks]
    message = f"Restarted connector {name}{which}"
    if not isinstance(status, dict):
        return message
    if output != "table":
        return render(status, output, str)
    rows = [("connector", status.get("connector", {}).get("state"))]
    rows += [(f"task {task['id']}", task.get("state")) for task in status.get("tasks", [])]
    return message + "\n" + table(("part", "state"), rows)


def restart_task(client: ConnectClient, task: str) -> str:
    """`POST /connectors/{c}/tasks/{n}/restart` for `task` given as `CONNECTOR/N`."""
    connector, separator, number = task.rpartition("/")
    if not separator or not connector or not number.isdigit():
        raise UsageError(f"A task is CONNECTOR/NUMBER, not '{task}'")
    client.call("POST", f"/connectors/{segment(connector)}/tasks/{number}/restart")
    return f"Restarted task {connector}/{number}"


def delete(client: ConnectClient, name: str) -> str:
    client.call("DELETE", f"/connectors/{segment(name)}")
    return f"Deleted connector {name}"
