"""The 422 a project's quota with no room for a write gives (`quota.exceeded`), worded once for
NuFi's up-front check (`nufi.workloads.quotas.room`) and for quota admission's refusal
(`kube_errors.quota_refusal`) alike: what has no room, by its name, how much the quota allows and
has in use (a sentence of its own when nothing is left), and what to change. The quota's object name
and the figures as shown stay params for programs; the sentence names neither object nor key.
"""

from __future__ import annotations

from dataclasses import dataclass

from nufi.errors import ValidationFailed
from nufi.messages import Message

# The words of the resources a quota counts, or a scheduler or kubelet names, that are not a device
# type's (whose name the caller knows), as quota admission and as the scheduler write them.
_RESOURCE_WORDS = {
    "requests.storage": "quota.resource.storage",
    "pods": "quota.resource.pods",
    "requests.cpu": "quota.resource.cpu",
    "cpu": "quota.resource.cpu",
    "requests.memory": "quota.resource.memory",
    "memory": "quota.resource.memory",
    "requests.ephemeral-storage": "quota.resource.ephemeral_storage",
    "ephemeral-storage": "quota.resource.ephemeral_storage",
}


@dataclass(frozen=True)
class Figures:
    """One quota's figures for the resource a write has no room in, as they are shown: counts as
    numbers, bytes as quantities (`4Gi`). `resource` is the quota's name for it (`requests.<key>`,
    `requests.storage`, `pods`)."""

    quota: str
    resource: str
    hard: int | str
    used: int | str
    requested: int | str
    room: int | str


def quota_exceeded(
    project: str, figures: Figures, *, field: str | None, what: object = None, fix: Message | None = None
) -> ValidationFailed:
    """The 422 `quota.exceeded`: the project, what it has no room for (`what`, a device type's name;
    else the resource's own word) and how much, what its quota allows and has in use, in a sentence of
    its own when nothing is left, and what to change (`fix`; else to ask for fewer, or only an admin
    when nothing is left). The figures stay params as shown, with the quota's name, for callers."""
    full = str(figures.room) == "0"
    if full:
        left = Message("quota.left.none", {"hard": _worded(figures.hard)})
    else:
        left = Message(
            "quota.left.some",
            {key: _worded(getattr(figures, key)) for key in ("hard", "used", "room")},
        )
    return ValidationFailed(
        code="quota.exceeded",
        field=field,
        quota=figures.quota,
        params={
            "project": project,
            "quota": figures.quota,
            "resource_key": figures.resource.removeprefix("requests."),
            "hard": figures.hard,
            "used": figures.used,
            "requested": figures.requested,
            "room": figures.room,
            "what": resource_word(figures.resource) if what is None else what,
            "more": _worded(figures.requested),
            "left": left,
            "fix": fix or Message("quota.fix.admin" if full else "quota.fix.fewer"),
        },
    )


def _worded(amount: int | str) -> object:
    # A count takes the reader's counter word ("2개"); a quantity reads as it is written ("4Gi").
    return Message("quota.amount.count", {"count": amount}) if str(amount).isdigit() else amount


def resource_word(resource: str) -> Message:
    """A resource as a person reads it, from its name in a quota (`requests.storage`) or in the
    scheduler's and kubelet's words (`cpu`); any other by its own name."""
    if resource in _RESOURCE_WORDS:
        return Message(_RESOURCE_WORDS[resource])
    return Message("quota.resource.other", {"resource": resource.removeprefix("requests.")})
