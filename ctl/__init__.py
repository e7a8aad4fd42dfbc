"""`kconnect ctl`: a kcctl-style client of the REST API of any Kafka Connect cluster (kconnect's or Java's).

It speaks HTTP only (httpx) and never imports the runtime, so it starts fast and works against clusters
it did not start. `cli` parses the command line, `commands_*` hold the verbs, `client` maps HTTP answers
to the exit codes of `errors`, `contexts` keeps named clusters in a config file, `output` renders.
"""
