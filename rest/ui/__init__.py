"""The dashboard at `/ui`: a static page over the REST API, and what it needs to see the whole cluster."""

from rest.ui.cluster import ClusterView, ClusterWorker, single_worker
from rest.ui.routes import router

__all__ = ["ClusterView", "ClusterWorker", "router", "single_worker"]
