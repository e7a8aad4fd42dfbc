"""The HTTP layers around a worker's REST app (`stack` puts them together, outermost first): the body size
limit, CORS, the cross-site write guard, the configured response headers, and `/connectors/` answered
as `/connectors`.
"""
