"""What every kind of workload (a deployment, a lab) shares in the words of its errors."""

from __future__ import annotations

from typing import Literal

from nufi.errors import Conflict
from nufi.messages import Message

WorkloadKind = Literal["deployment", "lab"]


def name_taken(kind: WorkloadKind, project: str, name: str) -> Conflict:
    """The project already has a workload of this kind by this name: the same problem for every kind."""
    return Conflict(
        code="workload.name_taken",
        field="name",
        params={"kind": Message(f"workload.kind_named.{kind}"), "project": project, "name": name},
    )
