"""The lab proxy, a component of its own: what the app mounts, and the lab paths' shape.

It needs from the host only `app.state.services` (the `Services` of the composition root: settings,
the token verifier, the lab routes and grants) and the problem answers of `nufi.api.problems`; it
never imports a route. It offers the app:

- `LabProxyMiddleware`: the pure ASGI middleware `nufi.api.create_app` installs; every request for a
  lab path, or on a lab's own host, is answered here and never reaches a route or the dashboard;
- `ROUTE_TEMPLATE`: the one path template the OpenAPI document describes for the proxy;
- `match_lab_path`: whether a path is a lab's, so the security headers leave a lab's own policy alone.

Only those modules import it (the `lab-proxy-alone` import contract); inside, `proxy` runs the
exchanges, `exchange` asks who the caller is, `forward` passes bytes on, `origin` and `signin` keep
labs on origins of their own, and `paths` parses lab paths and caches their routes.
"""

from nufi.api.labproxy.paths import ROUTE_TEMPLATE, match_lab_path
from nufi.api.labproxy.proxy import LabProxyMiddleware

__all__ = ["ROUTE_TEMPLATE", "LabProxyMiddleware", "match_lab_path"]
