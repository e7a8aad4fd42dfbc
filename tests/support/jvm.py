"""JVM options for the Java processes tests start (brokers, Java Kafka Connect, MirrorMaker 2)."""

from __future__ import annotations

# C1 alone: a broker's start costs 5.5 CPU-seconds instead of 8.9, and two million small records 4.5 instead
# of 6.6 (measured on a 2-core machine): C2's compilations never pay for themselves in a test's few minutes.
# Compilation changes no behaviour a test looks at.
QUICK_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)
