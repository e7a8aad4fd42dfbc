"""Kafka Connect's metrics, measured in batches and served in Prometheus' format by `GET /metrics`.

- `windows`: Kafka's sampled statistics (avg, max, min over `metrics.num.samples` windows of
  `metrics.sample.window.ms`), and rates read from running totals;
- `task_metrics`: what a task runner measures (per poll, put or commit; never per record);
- `worker_metrics`, `worker_groups`: start-ups, states and time ratios the worker sees;
- `client_stats`: librdkafka's statistics as Kafka's client metrics;
- `groups`: `MetricGroup`, the plain values handed around (and across a task process's channel);
- `prometheus`: the names Strimzi's JMX exporter rules give Kafka's MBeans;
- `catalog`: every metric with its meaning (HELP lines, and the list in docs/monitoring.md).
"""
