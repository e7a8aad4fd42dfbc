"""The HTTP layers around a worker's REST app, from its config, outermost first:

1. `response.http.headers.config` headers, on every response (401s included);
2. CORS (`access.control.allow.*`), so preflights are answered without credentials and refusals carry
   the CORS headers a browser needs to read them;
3. cross-site writes refused (`cross_site`): a browser's POST, PUT, PATCH or DELETE from a page of another
   origin than this worker's or those CORS allows;
4. authentication by the authenticators of `rest.extension.classes`, when any registered one;
5. the authorizer of `rest.authorizer.class`, when set, given to each request (`rest.authorization`);
6. the request body limit (`rest.request.body.max.bytes`), inside authentication so that nobody
   unauthenticated makes the worker read a body.

Built before the listeners are bound, so a bad key or an extension that cannot start stops the worker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from starlette.types import ASGIApp

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from rest.authorization.api import Authorizer
from rest.authorization.enforcement import ProvideAuthorizer
from rest.authorization.loader import REST_AUTHORIZER_CLASS, load_authorizer
from rest.extensions.authentication import RequireAuthentication
from rest.extensions.loader import REST_EXTENSION_CLASSES, RestExtensions, load_rest_extensions
from rest.http_layers.body_limit import REQUEST_BODY_MAX_BYTES, BodyLimit
from rest.http_layers.cors import ALLOW_METHODS, ALLOW_ORIGIN, with_cors
from rest.http_layers.cross_site import RefuseCrossSiteWrites
from rest.http_layers.response_headers import RESPONSE_HTTP_HEADERS_CONFIG, ResponseHeaders, parse_header_rules

ADMIN_LISTENERS = "admin.listeners"


@dataclass
class HttpStack:
    app: ASGIApp
    extensions: RestExtensions
    authorizer: Authorizer | None = None

    def close(self) -> None:
        """Close the extensions and the authorizer (when the REST server stops)."""
        try:
            self.extensions.close()
        finally:
            if self.authorizer is not None:
                self.authorizer.close()


def http_stack(app: ASGIApp, config: WorkerConfig, environ: Mapping[str, str]) -> HttpStack:
    """`app` wrapped in the layers the worker's config asks for; ConfigError naming the bad key."""
    rules = parse_header_rules(str(config.get(RESPONSE_HTTP_HEADERS_CONFIG) or ""))
    extensions = load_rest_extensions(list(config.get(REST_EXTENSION_CLASSES) or []), config.originals, environ)
    wrapped: ASGIApp = BodyLimit(app, int(config.get(REQUEST_BODY_MAX_BYTES)))
    authorizer = _authorizer(config, extensions)
    if authorizer is not None:
        admin_listeners = config.get(ADMIN_LISTENERS)
        wrapped = ProvideAuthorizer(wrapped, authorizer, exempt_admin_paths=bool(admin_listeners))
    if extensions.authenticators:
        wrapped = RequireAuthentication(wrapped, extensions.authenticators)
    allow_origin = str(config.get(ALLOW_ORIGIN) or "")
    wrapped = RefuseCrossSiteWrites(wrapped, [o.strip() for o in allow_origin.split(",") if o.strip()])
    wrapped = with_cors(wrapped, allow_origin, str(config.get(ALLOW_METHODS) or ""))
    if rules:
        wrapped = ResponseHeaders(wrapped, rules)
    return HttpStack(wrapped, extensions, authorizer)


def _authorizer(config: WorkerConfig, extensions: RestExtensions) -> Authorizer | None:
    """The configured authorizer; ConfigError when there is one but nothing authenticates callers (closing
    the extensions already started: the worker stops)."""
    try:
        authorizer = load_authorizer(config.get(REST_AUTHORIZER_CLASS), config.originals)
        if authorizer is not None and not extensions.authenticators:
            authorizer.close()
            raise ConfigError(
                f"{REST_AUTHORIZER_CLASS} decides from who a caller is, but no REST extension authenticates "
                "callers: add one to rest.extension.classes (BasicAuthSecurityRestExtension, for example)"
            )
    except BaseException:
        extensions.close()
        raise
    return authorizer
