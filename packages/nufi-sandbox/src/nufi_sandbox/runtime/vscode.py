"""A page standing in for VS Code (code-server), which the sandbox cannot run: served on
``127.0.0.1:$PORT``, saying so in Korean and English and showing what the pod gave it (its devices
above all), with ``/healthz`` for probes.

code-server itself serves at ``/`` and leaves the lab's path to the proxy in front, which takes it off
(Kubeflow's ``http-rewrite-uri: /``); a proxy that passes the path on reaches the same page under
``NB_PREFIX``. Both work here.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from nufi_sandbox.loopback import HOST
from nufi_sandbox.runtime.prefix import base_url

NOTICE_EN = "VS Code (code-server) is not available in the sandbox; this page stands in for it."
NOTICE_KO = "샌드박스에서는 VS Code(code-server)를 실행할 수 없습니다. 이 페이지가 그 자리를 대신합니다."
SHOWN_ENV = ("LPU_VISIBLE_DEVICES", "NODE_NAME", "HOSTNAME", "POD_NAME", "POD_NAMESPACE", "NB_PREFIX")


def describe(env: Mapping[str, str], workdir: Path) -> dict[str, object]:
    return {
        "editor": "stand-in",
        "notice": {"en": NOTICE_EN, "ko": NOTICE_KO},
        "env": {name: env.get(name) for name in SHOWN_ENV},
        "workdir": str(workdir),
    }


def render(env: Mapping[str, str], workdir: Path) -> str:
    rows = "\n".join(
        f"<tr><th>{html.escape(name)}</th>"
        f"<td><code>{html.escape(env.get(name) or '(unset)')}</code></td></tr>"
        for name in SHOWN_ENV
    )
    return f"""<!doctype html>
<html lang="ko">
<head><meta charset="utf-8"><title>VS Code (sandbox stand-in)</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 46rem; color: #1f2328; }}
.notice {{ border-left: 4px solid #0969da; padding: .5rem 1rem; background: #ddf4ff; }}
th {{ text-align: left; padding-right: 1rem; }}
</style></head>
<body>
<h1>VS Code <small>(stand-in)</small></h1>
<p class="notice" lang="ko">{html.escape(NOTICE_KO)}</p>
<p class="notice" lang="en">{html.escape(NOTICE_EN)}</p>
<h2>Environment / 환경</h2>
<table>
{rows}
<tr><th>working directory</th><td><code>{html.escape(str(workdir))}</code></td></tr>
</table>
</body>
</html>
"""


def create_app(env: Mapping[str, str], workdir: Path) -> Starlette:
    prefix = base_url(env)
    page, facts = render(env, workdir), describe(env, workdir)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def home(_: Request) -> Response:
        return HTMLResponse(page)

    async def about(_: Request) -> Response:
        return JSONResponse(facts)

    async def to_prefix(_: Request) -> Response:
        return RedirectResponse(prefix, status_code=307)

    routes = [Route("/", home), Route("/healthz", healthz), Route("/api/stand-in", about)]
    if prefix != "/":
        routes += [
            Route(prefix, home),
            Route(f"{prefix}healthz", healthz),
            Route(f"{prefix}api/stand-in", about),
            Route(prefix.rstrip("/"), to_prefix),
        ]
    return Starlette(routes=routes)


def run(*, port: int) -> None:
    app = create_app(dict(os.environ), Path.cwd())
    print(f"VS Code stand-in at http://{HOST}:{port}{base_url(os.environ)}", flush=True)
    config = uvicorn.Config(
        app, host=HOST, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=2
    )
    uvicorn.Server(config).run()
