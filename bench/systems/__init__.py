"""The Connect workers under comparison, each started as a process from generated properties files."""

from bench.systems.base import RunningWorker, WorkerMode, WorkerSystem, start_worker, worker_properties
from bench.systems.java import JavaConnect
from bench.systems.kconnect import Kconnect, KconnectTaskProcesses

__all__ = [
    "JavaConnect",
    "Kconnect",
    "KconnectTaskProcesses",
    "RunningWorker",
    "WorkerMode",
    "WorkerSystem",
    "start_worker",
    "worker_properties",
]
