"""The record path of a task: converters, the transformation chain and the error handler as one
`RecordPipeline`, and the batches it turns polled and consumed records into.

Called on a task's own thread; knows nothing of how the task was scheduled.
"""
