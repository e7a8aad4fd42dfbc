"""REST extensions (`rest.extension.classes`): the API a user's extension implements, and the loader."""

from rest.extensions.api import (
    ENTRY_POINT_GROUP,
    Authenticator,
    Principal,
    RestExtension,
    RestExtensionContext,
    RestRequest,
)
from rest.extensions.loader import REST_EXTENSION_CLASSES, RestExtensions, load_rest_extensions

__all__ = [
    "ENTRY_POINT_GROUP",
    "REST_EXTENSION_CLASSES",
    "Authenticator",
    "Principal",
    "RestExtension",
    "RestExtensionContext",
    "RestExtensions",
    "RestRequest",
    "load_rest_extensions",
]
