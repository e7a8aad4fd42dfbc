"""Kafka's client TLS keys in librdkafka's terms: trust stores and key stores as PKCS12 or PEM.

librdkafka has no trust store: a PEM trust store becomes `ssl.ca.location`, a PKCS12 one is read here and
handed over as PEM text (`ssl.ca.pem`). A PKCS12 key store is read by librdkafka itself
(`ssl.keystore.location`); a PEM one becomes `ssl.certificate.location` and `ssl.key.location`. Java's
JKS cannot be read: a ConfigError gives the `keytool` command converting it. Java's empty
`ssl.endpoint.identification.algorithm` (no host name check) is librdkafka's `none`.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.keystores import pkcs12_certificates, store_kind


def librdkafka_tls(props: Mapping[str, str]) -> dict[str, str]:
    """librdkafka settings for the `ssl.truststore.*`, `ssl.keystore.*` and endpoint keys in `props`."""
    result: dict[str, str] = {}
    if props.get("ssl.truststore.certificates"):
        result["ssl.ca.pem"] = props["ssl.truststore.certificates"]
    location = props.get("ssl.truststore.location", "").strip()
    if location:
        kind = store_kind(location, props.get("ssl.truststore.type"), "ssl.truststore.location")
        if kind == "PEM":
            result["ssl.ca.location"] = location
        else:
            result["ssl.ca.pem"] = pkcs12_certificates(location, props.get("ssl.truststore.password"))
    keystore = props.get("ssl.keystore.location", "").strip()
    if keystore and store_kind(keystore, props.get("ssl.keystore.type"), "ssl.keystore.location") == "PEM":
        result.update({"ssl.certificate.location": keystore, "ssl.key.location": keystore})
        if props.get("ssl.key.password"):
            result["ssl.key.password"] = props["ssl.key.password"]
    if props.get("ssl.keystore.key") and props.get("ssl.keystore.certificate.chain"):
        result.update(
            {"ssl.key.pem": props["ssl.keystore.key"], "ssl.certificate.pem": props["ssl.keystore.certificate.chain"]}
        )
    endpoint = props.get("ssl.endpoint.identification.algorithm")
    if endpoint is not None:
        result["ssl.endpoint.identification.algorithm"] = endpoint.strip().lower() or "none"
    return result


def uses_pem_keystore(props: Mapping[str, str]) -> bool:
    """Whether `ssl.keystore.location` names a PEM file (librdkafka must then not read it as PKCS12)."""
    location = props.get("ssl.keystore.location", "").strip()
    return bool(location) and store_kind(location, props.get("ssl.keystore.type"), "ssl.keystore.location") == "PEM"
