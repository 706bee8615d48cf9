"""A namespace's ResourceQuotas as read a moment ago, for what is shown: pages that refresh every few
seconds, many open at once for one project, share one read instead of each asking Kubernetes.

Only display reads take this path. The up-front quota check reads afresh, and admission enforces the
quota whatever a page showed.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from nufi.cluster.kube_rest import Json
from nufi.monitoring.flight import SingleFlight

KEEP_SECONDS = 2.0
_MAX_NAMESPACES = 1024


class RecentQuotas:
    def __init__(
        self,
        read: Callable[[str], Awaitable[list[Json]]],
        *,
        keep_seconds: float = KEEP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self._keep = keep_seconds
        self._clock = clock
        self._kept: dict[str, tuple[float, list[Json]]] = {}
        self._flights: SingleFlight[str, list[Json]] = SingleFlight()

    async def of(self, namespace: str) -> list[Json]:
        """The namespace's quotas, read at most `keep_seconds` ago; callers meanwhile share one read."""
        kept = self._kept.get(namespace)
        if kept is not None and self._clock() - kept[0] < self._keep:
            return kept[1]
        quotas = await self._flights.run(namespace, lambda: self._read(namespace))
        if len(self._kept) >= _MAX_NAMESPACES:
            self._kept.clear()
        self._kept[namespace] = (self._clock(), quotas)
        return quotas
