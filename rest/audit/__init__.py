"""The audit trail: every change made through the REST API, who made it, from where, through which worker,
with what outcome, and for config changes what changed (secret values hidden).

`AuditChanges` (an ASGI layer of the app) records each change request once, after its answer; an
`AuditTrail` hands the record to its sinks: a JSON-lines log stream (`rest.audit.log`) and, on a worker, a
Kafka topic (`workers.common.audit_topic`), so every worker's changes land in one place and outlive them.
"""
