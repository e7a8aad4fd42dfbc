"""The runtime's domain values: what the user asked for and what is happening (`states`), the entities the
herder answers with (`info`), status reporting (`status`), the errors that map to REST answers (`errors`),
and the former Python paths of kconnect's plug-ins that configs may still name (`moved_modules`).

The bottom layer of the runtime: it imports nothing of the runtime but itself.
"""
