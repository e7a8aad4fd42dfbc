"""What both worker modes' processes share: settings from files and the environment, logging, the REST
listener bound before the herder exists, the signal-driven run loop, and `/health`'s answers.

Neither `workers.standalone` nor `workers.distributed` imports the other; both import this package and
`workers.herding` (what their herders share).
"""
