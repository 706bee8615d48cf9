"""The one place a workload's write learns what a Kubernetes refusal means, as a domain error.

The workload domains (projects, quotas, deployments, labs) never read an HTTP status. A write is
done inside `refused_as(...)`, which names what a refusal means for that write: `taken` for a name
already there (409), `absent` for an object gone (404), `forbidden` for NuFi's own rights refused
(401/403 that is not a quota's admission). Anything else, and a quota's admission refusal, is the
general meaning every write shares (`refusal_error`), so a deployment and a lab refused alike get the
same error. `exists_ok` makes a 409 mean "already there, as wanted".

Each meaning is an exception to raise, or a function of what Kubernetes said giving one (for errors
that repeat Kubernetes' words). A domain may pass an exception of its own to steer a retry loop
(a 409 on a replace: read again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from nufi.cluster.kube_errors import KubeRefused, quota_refusal, refusal_error

# "It was refused, whatever the reason": for undo paths and logs that only report.
Refused = KubeRefused


@dataclass(frozen=True)
class Said:
    """What Kubernetes answered, for an error that repeats it to the caller."""

    status: int
    message: str


Meaning = BaseException | Callable[[Said], BaseException]


class Change(Protocol):
    """An intent's change under way (`workloads/intents.py`): a refused write touched nothing."""

    touched: bool


@contextmanager
def refused_as(
    *,
    taken: Meaning | None = None,
    absent: Meaning | None = None,
    forbidden: Meaning | None = None,
    field: str | None = None,
    exists_ok: bool = False,
    change: Change | None = None,
) -> Iterator[None]:
    """Run a write; a refusal inside leaves as the domain error its meaning names, and marks
    `change` untouched (the API server refused it: the cluster is as it was)."""
    try:
        yield
    except KubeRefused as exc:
        if change is not None:
            change.touched = False
        if exc.status == 409 and exists_ok:
            return
        raise meaning_of(exc, taken=taken, absent=absent, forbidden=forbidden, field=field) from None


def meaning_of(
    exc: KubeRefused,
    *,
    taken: Meaning | None = None,
    absent: Meaning | None = None,
    forbidden: Meaning | None = None,
    field: str | None = None,
) -> BaseException:
    """The exception a refusal stands for (see `refused_as`)."""
    by_status: dict[int, Meaning | None] = {409: taken, 404: absent}
    if quota_refusal(exc) is None:
        by_status |= {401: forbidden, 403: forbidden}
    meaning = by_status.get(exc.status)
    if meaning is None:
        return refusal_error(exc, field=field)
    if isinstance(meaning, BaseException):
        return meaning
    return meaning(Said(exc.status, exc.message))
