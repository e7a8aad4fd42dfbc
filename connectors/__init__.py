"""First-party connectors: plug-ins like a user's own, found through entry points, importing only `connect.api`."""
