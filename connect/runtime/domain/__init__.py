"""The runtime's domain values: what the user asked for and what is happening (`states`), the entities the
herder answers with (`info`), status reporting (`status`) and the errors that map to REST answers (`errors`).

The bottom layer of the runtime: it imports nothing of the runtime but itself.
"""
