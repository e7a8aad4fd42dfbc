"""`create_app`: the FastAPI application for one worker, built around the herder it is given.

Handlers are plain functions that FastAPI runs on its thread pool, so herder calls may block (up to
the herder's own request timeout) without stalling the event loop; several run at once. The exceptions
never wait either: status reads of a herder that says they never wait (`rest.status_reads`), and
`GET /connectors?expand=...` answered from the answer kept while nothing changed (`rest.expand_answers`).
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI

from connect.api.version import distribution_version
from connect.runtime.herder import Herder
from connect.runtime.logs.levels import LoggerLevels
from rest.audit.middleware import AuditChanges, note_change
from rest.audit.trail import AuditTrail
from rest.authorization.enforcement import authorize_request, check_every_route_has_a_rule
from rest.authorization.secrets import SecretKeys
from rest.errors import install_error_handlers
from rest.expand_answers import ExpandAnswers
from rest.http_layers.trailing_slash import StripTrailingSlash
from rest.routes import connectors, lifecycle, offsets, plugins, root
from rest.routes import loggers as logger_routes
from rest.routes import metrics as metric_routes
from rest.routes.metrics import MetricsSource
from rest.ui import ClusterView, single_worker
from rest.ui import router as ui_router

_DESCRIPTION = (
    "Kafka Connect's REST API, served by kconnect. Every error answers "
    '`{"error_code": <HTTP status>, "message": "..."}`; invalid requests answer 400.'
)


class _ConnectApi(FastAPI):
    """FastAPI, minus the 422 answers it documents: invalid requests answer 400 here (see rest.errors)."""

    def openapi(self) -> dict[str, Any]:
        schema = super().openapi()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                responses = operation.get("responses", {})
                invalid = responses.pop("422", None)
                if invalid is not None and "400" not in responses:
                    responses["400"] = {
                        "description": "Bad Request",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorMessage"}}},
                    }
        for name in ("HTTPValidationError", "ValidationError"):
            schema.get("components", {}).get("schemas", {}).pop(name, None)
        return schema


def create_app(
    herder: Herder,
    *,
    loggers: LoggerLevels | None = None,
    metrics: MetricsSource | None = None,
    cluster: ClusterView | None = None,
    audit: AuditTrail | None = None,
    title: str = "kconnect",
    version: str | None = None,
) -> FastAPI:
    """Build the REST app over `herder`; `loggers` defaults to this process's logging hierarchy; `metrics`
    gives what `GET /metrics` serves (without it: no metrics, only the path); `cluster` names the workers
    whose task figures the dashboard gathers (without it: this worker alone); `audit` records every change
    request (without it: none)."""
    app = _ConnectApi(
        title=title,
        version=version or distribution_version("kconnect", fallback="unknown"),
        description=_DESCRIPTION,
        redirect_slashes=False,
        # Kafka reads a body without Content-Type as JSON too; FastAPI would ignore it by default.
        strict_content_type=False,
        # Every route, before its handler: who may call it (a no-op unless `rest.authorizer.class` is set).
        # First: which change a request is (for the audit trail, refused ones included).
        dependencies=[Depends(note_change), Depends(authorize_request)],
    )
    app.state.herder = herder
    app.state.expand_answers = ExpandAnswers(herder)
    app.state.secret_keys = SecretKeys(herder)
    app.state.logger_levels = loggers if loggers is not None else LoggerLevels()
    app.state.metrics = metrics if metrics is not None else list
    app.state.cluster = cluster if cluster is not None else single_worker("this worker", "")
    install_error_handlers(app)
    for module in (root, connectors, lifecycle, offsets, plugins, logger_routes, metric_routes):
        app.include_router(module.router)
    app.include_router(ui_router)
    if audit is not None:
        app.add_middleware(AuditChanges, herder=herder, trail=audit, secrets=app.state.secret_keys)
    app.add_middleware(StripTrailingSlash)
    check_every_route_has_a_rule(app)
    return app
