"""core/v1 Events as the components record them, with the client-side aggregation of repeats."""

from __future__ import annotations

import logging
import time

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.sim.meta import Obj, name_of, namespace_of, now, uid_of
from nufi_sandbox.devcluster.storage.store import Store

log = logging.getLogger(__name__)

_COMBINED = "(combined from similar events): "
_AGGREGATE_AFTER = 10
_AGGREGATE_SECONDS = 600.0


class EventRecorder:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._rt = store.rt("", "v1", "events")
        # (object uid, type, reason, message) -> event name, so a repeat bumps count instead of piling up.
        self._seen: dict[tuple[str, str, str, str], tuple[str, str]] = {}
        # (object uid, type, reason) -> distinct messages lately and when the last came (EventAggregator).
        self._similar: dict[tuple[str, str, str], tuple[set[str], float]] = {}

    def record(
        self, obj: Obj, kind: str, reason: str, message: str, *, component: str, host: str = ""
    ) -> None:
        namespace = namespace_of(obj) or "default"
        key = (uid_of(obj), kind, reason, message)
        if self._aggregated(key[:3], message):
            message = _COMBINED + message
            key = (*key[:3], _COMBINED)
        stamp = now()
        try:
            known = self._seen.get(key)
            if known is not None and self._store.find(self._rt, *known) is not None:
                self._store.mutate(self._rt, *known, lambda event: _repeat(event, stamp, message))
                return
            source: Obj = {"component": component}
            if host:
                source["host"] = host
            event: Obj = {
                "metadata": {"name": f"{name_of(obj)}.{time.time_ns():x}", "namespace": namespace},
                "involvedObject": {
                    "kind": obj.get("kind", ""),
                    "namespace": namespace_of(obj),
                    "name": name_of(obj),
                    "uid": uid_of(obj),
                    "apiVersion": obj.get("apiVersion", ""),
                    "resourceVersion": obj.get("metadata", {}).get("resourceVersion", ""),
                },
                "reason": reason,
                "message": message,
                "source": source,
                "firstTimestamp": stamp,
                "lastTimestamp": stamp,
                "count": 1,
                "type": kind,
                "eventTime": None,
                "reportingComponent": component,
                "reportingInstance": host or component,
            }
            if not namespace_of(obj):
                event["involvedObject"].pop("namespace")
            created = self._store.create(self._rt, namespace, event)
            if len(self._seen) > 10_000:
                self._seen.clear()  # only repeats are at stake: forgetting one starts a fresh event
            self._seen[key] = (namespace, name_of(created))
        except errors.ApiError as exc:
            # Events are best effort in the real components too: a lost one never fails the caller.
            log.debug("event %s for %s not recorded: %s", reason, name_of(obj), exc.message)

    def _aggregated(self, similar: tuple[str, str, str], message: str) -> bool:
        """client-go's EventAggregator: from the 10th distinct message of one object, type and reason
        within 10 minutes, they all go to one event, `(combined from similar events): <latest>`."""
        clock = time.monotonic()
        messages, last = self._similar.get(similar, (set(), clock))
        if clock - last > _AGGREGATE_SECONDS:
            messages = set()
        messages.add(message)
        aggregated = len(messages) >= _AGGREGATE_AFTER
        if aggregated:
            messages.pop()  # PopAny: the set stays one short of the limit
        if len(self._similar) > 10_000:
            self._similar.clear()
        self._similar[similar] = (messages, clock)
        return aggregated


def _repeat(event: Obj, stamp: str, message: str) -> None:
    event["count"] = int(event.get("count") or 1) + 1
    event["lastTimestamp"] = stamp
    event["message"] = message
