"""`bearer.auth.*`: a converter reaches the real registry (Apicurio) through a gateway that demands a bearer
token (tests/fixtures/schema_registry/bearer_gateway.py, standing in for an authenticating gateway), with a
static token and with a token it gets from an OAuth token endpoint (client-credentials grant). Wrong
credentials fail the conversion with the reason, never with the secret."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from connect.api.data import INT64_SCHEMA, Schema, Struct
from connect.api.errors import DataError
from connect.converters.schema_registry.avro import AvroConverter
from tests.fixtures.schema_registry.bearer_gateway import BearerGateway
from tests.fixtures.schema_registry.server import LocalRegistry

pytestmark = pytest.mark.integration

TOKEN, CLIENT_ID, CLIENT_SECRET = "gateway-token-1f6e", "kconnect-worker", "client-secret-9a2c"
EVENT = Schema.struct([("id", INT64_SCHEMA)], name="bearer.Event")


@pytest.fixture
def gateway(schema_registry: LocalRegistry) -> Iterator[BearerGateway]:
    gateway = BearerGateway(schema_registry.url, TOKEN, CLIENT_ID, CLIENT_SECRET).start()
    try:
        yield gateway
    finally:
        gateway.stop()


def _round_trip(gateway: BearerGateway, **configs: str) -> Struct:
    converter = AvroConverter()
    converter.configure({"schema.registry.url": gateway.url, "max.retries": "0", **configs}, False)
    try:
        data = converter.from_connect_data("bearer-events", EVENT, Struct(EVENT, {"id": 7}))
        value: Struct = converter.to_connect_data("bearer-events", data).value
        return value
    finally:
        converter.close()


def test_static_token(gateway: BearerGateway) -> None:
    static = {"bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.logical.cluster": "lsrc-1"}
    assert _round_trip(gateway, **static, **{"bearer.auth.token": TOKEN}).get("id") == 7
    assert set(gateway.seen.authorizations) == {f"Bearer {TOKEN}"}
    assert set(gateway.seen.logical_clusters) == {"lsrc-1"}

    with pytest.raises(DataError, match=r"refused registering a schema.*Unauthorized \(HTTP 401") as refused:
        _round_trip(gateway, **static, **{"bearer.auth.token": f"wrong-{TOKEN}"})
    assert TOKEN not in str(refused.value)


def test_oauthbearer_client_credentials(gateway: BearerGateway) -> None:
    oauth = {
        "bearer.auth.credentials.source": "OAUTHBEARER",
        "bearer.auth.issuer.endpoint.url": gateway.token_url,
        "bearer.auth.client.id": CLIENT_ID,
        "bearer.auth.scope": "schema-registry",
    }
    assert _round_trip(gateway, **oauth, **{"bearer.auth.client.secret": CLIENT_SECRET}).get("id") == 7
    assert [grant.get("scope") for grant in gateway.seen.grants] == ["schema-registry"]  # one token, reused
    assert set(gateway.seen.authorizations) == {f"Bearer {TOKEN}"}

    with pytest.raises(DataError, match=r"no OAuth token from http://127\.0\.0\.1:\d+/token.*invalid_client") as bad:
        _round_trip(gateway, **oauth, **{"bearer.auth.client.secret": f"wrong-{CLIENT_SECRET}"})
    assert CLIENT_SECRET not in str(bad.value)
