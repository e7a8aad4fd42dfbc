"""HTTP Basic authentication with Kafka's JAAS and credentials files (`BasicAuthSecurityRestExtension`)."""

from rest.extensions.basic_auth.extension import BasicAuthenticator, BasicAuthSecurityRestExtension

__all__ = ["BasicAuthSecurityRestExtension", "BasicAuthenticator"]
