"""CORS with Kafka Connect's keys, as Jetty's `CrossOriginFilter` that Kafka installs reads them.

`access.control.allow.origin`: blank leaves CORS off (same-origin only); otherwise a comma-separated list
of origins, where `*` alone allows any and a `*` inside one (`https://*.example.com`) matches any text.
`access.control.allow.methods`: the methods a preflight allows (Jetty's default GET, POST, HEAD).
Credentials are allowed, as Jetty's default. Unlike Kafka, a preflight is answered here, before
authentication: browsers send no credentials with it, so behind basic auth Kafka answers it 401.
"""

from __future__ import annotations

import re

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

ALLOW_ORIGIN = "access.control.allow.origin"
ALLOW_METHODS = "access.control.allow.methods"
DEFAULT_METHODS = ("GET", "POST", "HEAD")
# Jetty's default allowed headers, plus Authorization, which a browser client of a secured worker sends.
ALLOWED_HEADERS = ("X-Requested-With", "Content-Type", "Accept", "Origin", "Authorization")
PREFLIGHT_MAX_AGE_S = 1800  # Jetty's default


def with_cors(app: ASGIApp, allow_origin: str, allow_methods: str) -> ASGIApp:
    """`app` behind CORS handling, or `app` itself when `allow_origin` is blank."""
    origins = [origin.strip() for origin in allow_origin.split(",") if origin.strip()]
    if not origins:
        return app
    methods = [m.strip().upper() for m in allow_methods.split(",") if m.strip()] or list(DEFAULT_METHODS)
    exact = [origin for origin in origins if origin == "*" or "*" not in origin]
    patterns = [origin for origin in origins if origin != "*" and "*" in origin]
    regex = "|".join(".*".join(re.escape(part) for part in pattern.split("*")) for pattern in patterns) or None
    return CORSMiddleware(
        app,
        allow_origins=exact,
        allow_origin_regex=regex,
        allow_methods=methods,
        allow_headers=ALLOWED_HEADERS,
        allow_credentials=True,
        max_age=PREFLIGHT_MAX_AGE_S,
    )
