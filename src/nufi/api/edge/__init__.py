"""The HTTP face's edge: what every request meets before a route or the lab proxy answers it.

Pure ASGI middleware and the server's protocol, installed by `nufi.api.create_app` (and the deadline
protocol and unknown `/api/...` paths by the `nufi serve` command): security headers, the request id
and access log, the size and credential guard, finite JSON bodies, and read deadlines. None of it
imports a route.
"""
