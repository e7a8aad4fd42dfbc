"""The HTTP layers around a worker's REST app, from its config, outermost first:

1. `response.http.headers.config` headers, on every response (401s included);
2. CORS (`access.control.allow.*`), so preflights are answered without credentials and refusals carry
   the CORS headers a browser needs to read them;
3. cross-site writes refused (`cross_site`): a browser's POST, PUT, PATCH or DELETE from a page of another
   origin than this worker's or those CORS allows;
4. authentication by the authenticators of `rest.extension.classes`, when any registered one;
5. the request body limit (`rest.request.body.max.bytes`), inside authentication so that nobody
   unauthenticated makes the worker read a body.

Built before the listeners are bound, so a bad key or an extension that cannot start stops the worker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from starlette.types import ASGIApp

from connect.runtime.config.worker_config import WorkerConfig
from rest.extensions.authentication import RequireAuthentication
from rest.extensions.loader import REST_EXTENSION_CLASSES, RestExtensions, load_rest_extensions
from rest.http_layers.body_limit import REQUEST_BODY_MAX_BYTES, BodyLimit
from rest.http_layers.cors import ALLOW_METHODS, ALLOW_ORIGIN, with_cors
from rest.http_layers.cross_site import RefuseCrossSiteWrites
from rest.http_layers.response_headers import RESPONSE_HTTP_HEADERS_CONFIG, ResponseHeaders, parse_header_rules


@dataclass
class HttpStack:
    app: ASGIApp
    extensions: RestExtensions


def http_stack(app: ASGIApp, config: WorkerConfig, environ: Mapping[str, str]) -> HttpStack:
    """`app` wrapped in the layers the worker's config asks for; ConfigError naming the bad key."""
    rules = parse_header_rules(str(config.get(RESPONSE_HTTP_HEADERS_CONFIG) or ""))
    extensions = load_rest_extensions(list(config.get(REST_EXTENSION_CLASSES) or []), config.originals, environ)
    wrapped: ASGIApp = BodyLimit(app, int(config.get(REQUEST_BODY_MAX_BYTES)))
    if extensions.authenticators:
        wrapped = RequireAuthentication(wrapped, extensions.authenticators)
    allow_origin = str(config.get(ALLOW_ORIGIN) or "")
    wrapped = RefuseCrossSiteWrites(wrapped, [o.strip() for o in allow_origin.split(",") if o.strip()])
    wrapped = with_cors(wrapped, allow_origin, str(config.get(ALLOW_METHODS) or ""))
    if rules:
        wrapped = ResponseHeaders(wrapped, rules)
    return HttpStack(wrapped, extensions)
