"""Who may do what on the REST API: `rest.authorizer.class` (kconnect's; Kafka Connect has no such key).

Off by default: an authenticated caller may then do everything, as in Kafka Connect. With an authorizer,
each request is decided from the authenticated principal, the operation its route performs and the
connector it names (`rest.authorization.enforcement`); see `rest.authorization.api` for writing one and
`rest.authorization.role_authorizer` for the built-in roles.
"""
