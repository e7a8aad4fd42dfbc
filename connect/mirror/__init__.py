"""MirrorMaker 2 for kconnect: the pieces a mirrored flow is made of, beside the runtime as Kafka keeps them
(`connect/mirror`): the internal records' wire formats, replication policies, topic and group filters, and
offset translation. Like the built-in converters and transforms they import only the plug-in API."""
