"""Reading running labs' activity from their own servers, by the road the lab proxy takes to them
(`cluster.service_route.ServiceClient`: the services proxy or the Service's DNS name, with NuFi's
credentials and none of a caller's).

Read when asked, not by a background job: a page or a `GET` names the labs it shows, and only those
are read, on the replica that serves it, with no table to keep and no leader to wait for. A list's
labs are read together, each bounded by `timeout_seconds`, so a page of fifty labs waits at most one
timeout, never fifty calls in a row; a reading (an unreachable one too) is kept for `cache_seconds`,
so the pages' refresh every few seconds reaches each lab at most once per that long, and a lab that
hangs costs its readers one timeout per period, not one per render.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

import aiohttp
from yarl import URL

from nufi.cluster.service_route import ServiceClient, Upstream
from nufi.errors import NufiError
from nufi.logging import get_logger
from nufi.workloads.labs.activity import (
    Activity,
    ActivitySource,
    Unreadable,
    from_code_server,
    from_jupyter,
    unreachable,
)
from nufi.workloads.labs.model import PROFILES, SERVICE_PORT, Lab

_log = get_logger("nufi.workloads")
# Jupyter's kernel list and code-server's health are small; anything larger is not theirs.
MAX_BODY_BYTES = 1024 * 1024
_Key = tuple[str, str, str]


class ActivityReader:
    def __init__(
        self,
        upstreams: ServiceClient,
        *,
        cache_seconds: float,
        timeout_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._upstreams = upstreams
        self._cache_seconds = cache_seconds
        self._timeout = timeout_seconds
        self._clock = clock
        self._cache: dict[_Key, tuple[float, Activity]] = {}

    async def with_activity(self, labs: Sequence[Lab]) -> list[Lab]:
        """`labs`, each Ready one with its activity (read together); the others have none to read."""
        self._forget_expired()
        ready = [lab for lab in labs if lab.status == "Ready"]
        read = await asyncio.gather(*(self.read(lab) for lab in ready))
        found = {(lab.project, lab.name): activity for lab, activity in zip(ready, read, strict=True)}
        return [replace(lab, activity=found.get((lab.project, lab.name))) for lab in labs]

    async def read(self, lab: Lab) -> Activity:
        """The lab's activity, from the cache while it is fresh."""
        key = (lab.project, lab.name, lab.kind)
        cached = self._cache.get(key)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        activity = await self._fetch(lab)
        self._cache[key] = (self._clock() + self._cache_seconds, activity)
        return activity

    def _forget_expired(self) -> None:
        # Deleted labs' readings go with the next list, so the cache holds only labs still looked at.
        now = self._clock()
        for key in [key for key, (until, _) in self._cache.items() if until <= now]:
            del self._cache[key]

    async def _fetch(self, lab: Lab) -> Activity:
        source: ActivitySource = "code-server" if lab.kind == "vscode" else "jupyter"
        read_at = datetime.now(UTC)
        # The paths the proxy would ask for: under the lab's prefix for a server that serves it there.
        base = lab.url if PROFILES[lab.kind].serves_prefix else "/"
        try:
            async with asyncio.timeout(self._timeout):
                upstream = await self._upstreams.route.upstream(lab.project, lab.name, SERVICE_PORT)
                if source == "code-server":
                    return from_code_server(await self._get(upstream, base + "healthz"), read_at)
                # Asked not to count as activity itself (Jupyter's `no_track_activity`, as culler use).
                status, kernels = await asyncio.gather(
                    self._get(upstream, base + "api/status"),
                    self._get(upstream, base + "api/kernels?no_track_activity=1"),
                )
                return from_jupyter(status, kernels, read_at)
        except (TimeoutError, aiohttp.ClientError, Unreadable, NufiError) as exc:
            _log.info("lab activity unreadable", project=lab.project, lab=lab.name, error=repr(exc))
            return unreachable(source, read_at)

    async def _get(self, upstream: Upstream, path: str) -> object:
        headers = {**upstream.headers, "Accept": "application/json", "Accept-Encoding": "identity"}
        async with self._upstreams.session().get(
            URL(upstream.base_url + path, encoded=True),
            headers=headers,
            allow_redirects=False,
            ssl=upstream.ssl_context if upstream.ssl_context is not None else True,
        ) as response:
            # The lab refused or failed (aiohttp's ClientResponseError, unreadable below); any other
            # answer must still parse as the server's own JSON.
            response.raise_for_status()
            body = bytearray()
            async for chunk in response.content.iter_chunked(64 * 1024):
                body += chunk
                if len(body) > MAX_BODY_BYTES:
                    raise Unreadable("answer too large")
        try:
            parsed: object = json.loads(bytes(body))
        except ValueError:
            raise Unreadable("not JSON") from None
        return parsed
