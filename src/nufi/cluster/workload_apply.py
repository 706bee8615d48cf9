"""The one place a workload's write learns what a Kubernetes refusal means, as a domain error, and
the one way a workload of any kind is created: its top object, then its parts owned by it.

The workload domains (projects, quotas, deployments, labs) never read an HTTP status. A write is
done inside `refused_as(...)`, which names what a refusal means for that write: `taken` for a name
already there (409), `absent` for an object gone (404), `forbidden` for NuFi's own rights refused
(401/403 that is not a quota's admission). Anything else, and a quota's admission refusal, is the
general meaning every write shares (`refusal_error`), so a deployment and a lab refused alike get the
same error. `exists_ok` makes a 409 mean "already there, as wanted".

`apply_workload` creates a workload of any kind from its objects: the top object first, then each
part with the top object as its owner (`ownerReferences` with its uid, so the cluster's garbage
collector removes the parts with it, and a part whose top object never came to be goes too). When a
part is refused, what was written is deleted again before the refusal is raised.

Each meaning is an exception to raise, or a function of what Kubernetes said giving one (for errors
that repeat Kubernetes' words). A domain may pass an exception of its own to steer a retry loop
(a 409 on a replace: read again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from nufi.cluster.kube_errors import KubeRefused, quota_refusal, refusal_error
from nufi.cluster.kube_rest import Json
from nufi.cluster.objects import Kind, KubeObjects
from nufi.errors import NufiError
from nufi.logging import get_logger

_log = get_logger("nufi.cluster.workload_apply")

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


@dataclass(frozen=True)
class Write:
    """One object of a workload to create: what a 409 on its name means, and the request's field a
    refusal of it names (a quota refusing a claim refuses the storage asked for)."""

    kind: Kind
    body: Json
    taken: Meaning | None = None
    field: str | None = None


async def apply_workload(
    objects: KubeObjects, namespace: str, top: Write, parts: Sequence[Write], change: Change
) -> Json:
    """Create `top`, then each of `parts` owned by it; the top object as the API server returned it."""
    change.touched = True
    with refused_as(taken=top.taken, field=top.field, change=change):
        created = await objects.create(top.kind, namespace, top.body)
    written = [(top.kind, _name(top.body))]
    try:
        for part in parts:
            with refused_as(taken=part.taken, field=part.field):
                await objects.create(part.kind, namespace, owned_by(part.body, created))
            written.append((part.kind, _name(part.body)))
    except BaseException:
        await _undo(objects, namespace, written)
        raise
    return created


async def _undo(objects: KubeObjects, namespace: str, written: list[tuple[Kind, str]]) -> None:
    for kind, name in reversed(written):
        try:
            await objects.delete(kind, namespace, name)
        except (KubeRefused, NufiError) as exc:
            # The caller's refusal is what it must hear; this one is for the operator.
            _log.warning(
                "a half-made workload's object was left behind",
                namespace=namespace,
                kind=kind.kind,
                name=name,
                error=str(exc),
            )


def _name(body: Json) -> str:
    return str((body.get("metadata") or {}).get("name") or "")


def owner_reference(owner: Json) -> dict[str, Any]:
    """A reference to `owner` as the API server returned it (its uid is what the collector matches).

    Not a controller reference, and not blocking: no controller adopts these parts, and
    `blockOwnerDeletion` would ask for permission on the owner's finalizers that NuFi does not need."""
    metadata = owner.get("metadata") or {}
    return {
        "apiVersion": str(owner.get("apiVersion") or ""),
        "kind": str(owner.get("kind") or ""),
        "name": str(metadata.get("name") or ""),
        "uid": str(metadata.get("uid") or ""),
    }


def owned_by(body: Json, owner: Json) -> Json:
    """`body` with `owner` as its (only) owner."""
    metadata = dict(body.get("metadata") or {})
    metadata["ownerReferences"] = [owner_reference(owner)]
    return {**body, "metadata": metadata}
