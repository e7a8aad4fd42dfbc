"""`SSLContext`s from `TlsSettings`: the server side of an https listener, and the client side a worker or a
command uses to call an https listener (trusting the same trust store, presenting the same key store)."""

from __future__ import annotations

import ssl

from connect.api.errors import ConfigError
from rest.tls.ciphers import apply_cipher_suites, apply_protocols
from rest.tls.settings import TlsSettings
from rest.tls.stores import certificates_pem, load_into_context, load_key_material, load_trusted_certificates

_VERIFY_MODES = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}


def server_context(settings: TlsSettings) -> ssl.SSLContext:
    """The context of an https listener; ConfigError naming the key of whatever is missing or unreadable."""
    if not settings.keystore.given:
        raise ConfigError(f"An https listener needs a key store: set {settings.keystore.key('location')}")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    apply_protocols(context, settings.enabled_protocols, settings.protocol, settings.prefix)
    apply_cipher_suites(context, settings.cipher_suites, settings.prefix)
    try:
        load_into_context(context, load_key_material(settings.keystore))
    except ssl.SSLError as exc:
        raise ConfigError(f"Cannot use {settings.keystore.key('location')}: {exc}") from exc
    context.verify_mode = _VERIFY_MODES[settings.client_auth]
    if settings.client_auth != "none":
        _trust(context, settings, ssl.Purpose.CLIENT_AUTH)
    return context


def client_context(settings: TlsSettings) -> ssl.SSLContext:
    """A context to call an https listener: server certificates checked against the trust store (the
    system's when none is set), host names checked unless `ssl.endpoint.identification.algorithm` is empty,
    and the key store presented as the client certificate when one is set (for `ssl.client.auth`)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    apply_protocols(context, settings.enabled_protocols, settings.protocol, settings.prefix)
    apply_cipher_suites(context, settings.cipher_suites, settings.prefix)
    context.check_hostname = settings.endpoint_identification.lower() == "https"
    _trust(context, settings, ssl.Purpose.SERVER_AUTH)
    if settings.keystore.given:
        load_into_context(context, load_key_material(settings.keystore))
    return context


def _trust(context: ssl.SSLContext, settings: TlsSettings, purpose: ssl.Purpose) -> None:
    if not settings.truststore.given:
        # Java's default trust store is the JVM's cacerts; the system's CA bundle is its counterpart here.
        context.load_default_certs(purpose)
        return
    try:
        context.load_verify_locations(cadata=certificates_pem(load_trusted_certificates(settings.truststore)))
    except ssl.SSLError as exc:
        raise ConfigError(f"Cannot use {settings.truststore.key('location')}: {exc}") from exc
