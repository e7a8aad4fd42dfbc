"""`ssl.enabled.protocols`, `ssl.protocol` and `ssl.cipher.suites` applied to a Python `SSLContext`.

Kafka's values are Java's names: IANA cipher suite names (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`) that
OpenSSL spells differently (`ECDHE-RSA-AES128-GCM-SHA256`); both spellings are accepted. Python's `ssl`
module cannot choose TLS 1.3 suites (OpenSSL's `SSL_CTX_set_ciphersuites` is not exposed), so a list that
names TLS 1.3 suites must name all of OpenSSL's defaults, and a list naming none disables TLS 1.3, which
is what such a list does in Java too (no suite left to negotiate it).
"""

from __future__ import annotations

import ssl

from connect.api.errors import ConfigError

_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
# The generic names Java accepts for ssl.protocol: the highest version they allow.
_PROTOCOL_CEILINGS = {"TLS": ssl.TLSVersion.TLSv1_3, **_VERSIONS}
_TLS13_SUITES = frozenset(
    {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_CCM_SHA256"}
)
_KEY_EXCHANGES = {"ECDHE_RSA": "ECDHE-RSA-", "ECDHE_ECDSA": "ECDHE-ECDSA-", "DHE_RSA": "DHE-RSA-", "RSA": ""}
_BULK = {
    "AES_128_GCM": "AES128-GCM",
    "AES_256_GCM": "AES256-GCM",
    "AES_128_CBC": "AES128",
    "AES_256_CBC": "AES256",
    "AES_128_CCM": "AES128-CCM",
    "AES_256_CCM": "AES256-CCM",
    "CHACHA20_POLY1305": "CHACHA20-POLY1305",
}


def apply_protocols(context: ssl.SSLContext, enabled: tuple[str, ...], protocol: str, prefix: str) -> None:
    """Limit the context to the enabled versions (no older than TLS 1.2: older ones are refused)."""
    versions = []
    for name in enabled:
        if name not in _VERSIONS:
            raise ConfigError(
                f"Unsupported protocol {name} in {prefix}ssl.enabled.protocols: kconnect accepts TLSv1.2 and TLSv1.3"
            )
        versions.append(_VERSIONS[name])
    ceiling = _PROTOCOL_CEILINGS.get(protocol)
    if ceiling is None:
        raise ConfigError(f"Unsupported {prefix}ssl.protocol '{protocol}': expected TLS, TLSv1.2 or TLSv1.3")
    allowed = [v for v in versions if v <= ceiling]
    if not allowed:
        raise ConfigError(f"{prefix}ssl.enabled.protocols allows no version up to {prefix}ssl.protocol={protocol}")
    context.minimum_version = min(allowed)
    context.maximum_version = max(allowed)


def apply_cipher_suites(context: ssl.SSLContext, suites: tuple[str, ...], prefix: str) -> None:
    """Restrict the context to `suites`; ConfigError naming the first suite OpenSSL does not know."""
    if not suites:
        return
    key = f"{prefix}ssl.cipher.suites"
    tls13 = {suite for suite in suites if suite in _TLS13_SUITES}
    if tls13:
        defaults = {c["name"] for c in ssl.create_default_context().get_ciphers() if c["protocol"] == "TLSv1.3"}
        if not defaults <= tls13:
            raise ConfigError(
                f"{key} names only some TLS 1.3 suites, which Python's ssl module cannot restrict: list all of "
                f"{', '.join(sorted(defaults))}, or none (TLS 1.3 is then disabled)"
            )
    elif context.maximum_version > ssl.TLSVersion.TLSv1_2:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    older = [_openssl_name(suite) for suite in suites if suite not in _TLS13_SUITES]
    for name, suite in zip(older, [s for s in suites if s not in _TLS13_SUITES], strict=True):
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).set_ciphers(name)
        except ssl.SSLError as exc:
            raise ConfigError(f"Unknown or unavailable cipher suite {suite} in {key}") from exc
    if older:
        context.set_ciphers(":".join(older))
    elif context.minimum_version < ssl.TLSVersion.TLSv1_3:
        # Only TLS 1.3 suites listed: nothing is left for TLS 1.2.
        context.minimum_version = ssl.TLSVersion.TLSv1_3


def _openssl_name(suite: str) -> str:
    """OpenSSL's name of a TLS 1.2 suite given in IANA/Java spelling; an OpenSSL name is returned as is."""
    if not suite.startswith("TLS_") or "_WITH_" not in suite:
        return suite
    exchange, _, rest = suite[len("TLS_") :].partition("_WITH_")
    prefix = _KEY_EXCHANGES.get(exchange)
    if prefix is None:
        return suite
    for bulk, openssl_bulk in _BULK.items():
        if rest.startswith(bulk + "_"):
            mac = rest[len(bulk) + 1 :]
            if bulk == "CHACHA20_POLY1305":
                return prefix + openssl_bulk
            return f"{prefix}{openssl_bulk}-{mac}"
    return suite
