"""A connector's topics and offsets."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from connect.runtime.domain.errors import BadRequestError
from rest.deps import JSON_BODY, HerderDep
from rest.errors import documented
from rest.schemas import ActiveTopicsInfo, ConnectorOffset, ConnectorOffsets, Message

router = APIRouter(prefix="/connectors", tags=["topics and offsets"], responses=documented(500))

ConnectorName = Annotated[str, Path(description="The connector's name")]


@router.get("/{connector}/topics", responses=documented(403, 404))
def get_active_topics(connector: ConnectorName, herder: HerderDep) -> dict[str, ActiveTopicsInfo]:
    """Topics the connector has used since it was created or its topics were last reset."""
    return {connector: ActiveTopicsInfo(topics=herder.connector_active_topics(connector))}


@router.put("/{connector}/topics/reset", status_code=202, response_class=Response, responses=documented(403, 404))
def reset_active_topics(connector: ConnectorName, herder: HerderDep) -> None:
    """Forget the topics the connector has used."""
    herder.reset_connector_active_topics(connector)


@router.get("/{connector}/offsets", responses=documented(404))
def get_offsets(connector: ConnectorName, herder: HerderDep) -> ConnectorOffsets:
    """The connector's committed offsets, per partition."""
    return ConnectorOffsets(offsets=[ConnectorOffset.of(offset) for offset in herder.connector_offsets(connector)])


@router.patch("/{connector}/offsets", dependencies=JSON_BODY, responses=documented(400, 404, 409))
def alter_offsets(connector: ConnectorName, body: ConnectorOffsets, herder: HerderDep) -> Message:
    """Write offsets for some partitions (a null offset resets one); the connector must be STOPPED."""
    if not body.offsets:
        raise BadRequestError("Partitions / offsets need to be provided for an alter offsets request")
    offsets = [offset.to_domain() for offset in body.offsets]
    return Message(message=herder.alter_connector_offsets(connector, offsets))


@router.delete("/{connector}/offsets", responses=documented(400, 404, 409))
def reset_offsets(connector: ConnectorName, herder: HerderDep) -> Message:
    """Reset all of the connector's offsets; the connector must be STOPPED."""
    return Message(message=herder.reset_connector_offsets(connector))
