"""The engine: Worker, task runners, converters and transforms chain, plug-in discovery, stores, herder protocol."""
