"""What handlers are given: the herder, its kept `?expand` answers and logger levels from the app's state, and
body preconditions."""

from __future__ import annotations

import email.message
from typing import Annotated

from fastapi import Depends, Request
from starlette.exceptions import HTTPException

from connect.runtime.herder import Herder
from connect.runtime.logs.levels import LoggerLevels
from rest.expand_answers import ExpandAnswers


async def get_herder(request: Request) -> Herder:
    herder: Herder = request.app.state.herder
    return herder


async def get_expand_answers(request: Request) -> ExpandAnswers:
    answers: ExpandAnswers = request.app.state.expand_answers
    return answers


async def get_logger_levels(request: Request) -> LoggerLevels:
    loggers: LoggerLevels = request.app.state.logger_levels
    return loggers


async def require_json_body(request: Request) -> None:
    """415 for a body declared as anything but JSON (Kafka's resources consume only application/json).

    A request without a Content-Type is read as JSON, which is kinder than Kafka to hand-written curls.
    """
    content_type = request.headers.get("content-type")
    if not content_type:
        return
    parsed = email.message.Message()
    parsed["content-type"] = content_type
    subtype = parsed.get_content_subtype()
    if parsed.get_content_maintype() != "application" or not (subtype == "json" or subtype.endswith("+json")):
        raise HTTPException(status_code=415)


HerderDep = Annotated[Herder, Depends(get_herder)]
ExpandAnswersDep = Annotated[ExpandAnswers, Depends(get_expand_answers)]
LoggerLevelsDep = Annotated[LoggerLevels, Depends(get_logger_levels)]
JSON_BODY = [Depends(require_json_body)]
