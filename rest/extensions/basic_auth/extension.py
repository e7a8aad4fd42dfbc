"""kconnect's `BasicAuthSecurityRestExtension`: HTTP Basic authentication against the credentials files that
the `KafkaConnect` section of the JAAS file names, as Kafka's extension of the same name does.

Beyond Kafka: the JAAS file, its section and every credentials file are read at start-up, so a missing
file, a login module kconnect does not know, or a credentials file without users stops the worker with a
message naming it, rather than refusing (or, for an empty file, accepting) every request later.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path

from connect.api.errors import ConfigError
from rest.extensions.api import Authenticator, Principal, RestExtension, RestExtensionContext, RestRequest
from rest.extensions.basic_auth.credentials import CredentialsFile, FlaggedModule, jaas_login
from rest.extensions.basic_auth.jaas import (
    JAAS_PROPERTY,
    KAFKA_OPTS_ENV,
    KCONNECT_JAAS_ENV,
    jaas_file_from_environment,
    read_jaas_file,
)

LOGIN_CONTEXT = "KafkaConnect"
PROPERTY_FILE_LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
REALM = "Kafka Connect"


class BasicAuthenticator(Authenticator):
    def __init__(self, modules: list[FlaggedModule]) -> None:
        self._modules = modules

    @property
    def challenge(self) -> str:
        return f'Basic realm="{REALM}", charset="UTF-8"'

    def authenticate(self, request: RestRequest) -> Principal | None:
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        # Kafka splits at the first colon (a password may hold colons) and needs a non-empty user name.
        user, colon, password = decoded.partition(":")
        if not colon or not user:
            return None
        return Principal(user, "BASIC") if jaas_login(self._modules, user, password) else None


class BasicAuthSecurityRestExtension(RestExtension):
    def __init__(self) -> None:
        self._authenticator: BasicAuthenticator | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        """Nothing to read from the worker's properties: the JAAS file comes from the environment."""

    def register(self, context: RestExtensionContext) -> None:
        jaas_file = jaas_file_from_environment(context.environ)
        if jaas_file is None:
            raise ConfigError(
                f"{type(self).__name__} needs a JAAS file: set {KAFKA_OPTS_ENV}=-D{JAAS_PROPERTY}=/path/jaas.conf "
                f"(as for Kafka Connect) or {KCONNECT_JAAS_ENV}=/path/jaas.conf"
            )
        sections = read_jaas_file(jaas_file)
        entries = sections.get(LOGIN_CONTEXT)
        if not entries:
            raise ConfigError(f"The JAAS file '{jaas_file}' has no {LOGIN_CONTEXT} section with a login module")
        modules = []
        for entry in entries:
            if entry.class_name != PROPERTY_FILE_LOGIN_MODULE:
                raise ConfigError(
                    f"The JAAS file '{jaas_file}' names the login module {entry.class_name}, which kconnect does "
                    f"not provide: use {PROPERTY_FILE_LOGIN_MODULE}, or a REST extension of your own"
                )
            file = entry.options.get("file", "").strip()
            if not file:
                raise ConfigError(f"The {LOGIN_CONTEXT} login module in '{jaas_file}' needs a file=\"...\" option")
            modules.append(FlaggedModule(entry.flag, CredentialsFile.read(Path(file), jaas_file)))
        self._authenticator = BasicAuthenticator(modules)
        context.add_authenticator(self._authenticator)
