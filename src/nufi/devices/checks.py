"""The registration wizard's checks, also enforced when a device type is saved.

`check_resource_key` proves the cluster really has the resource: the syntax first (no cluster call
for a name Kubernetes would refuse anyway), then every node's capacity and allocatable for it.
`check_metrics` proves the expressions work against the real Prometheus: label names, PromQL syntax,
one instant query per expression, and the shape and plausibility of what comes back.
`enforce_query_bounds` runs before it on an admin's expressions: what they may cost Prometheus.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nufi.cluster import ClusterGateway, ClusterReader
from nufi.cluster.inventory import PAGE_SIZE, NodeResources
from nufi.cluster.resources import is_extended_resource
from nufi.devices.metric_checks import MetricCheck, MetricsCheck, check_metrics, enforce_query_bounds
from nufi.devices.resource_key_words import rule_message
from nufi.devices.spec import GENERIC_FETCHER, DeviceType, LabelsDraft, MetricsDraft
from nufi.messages import Language, Message, MessageModel
from nufi.models.resource_keys import resource_key_violations

__all__ = [
    "MetricCheck",
    "MetricsCheck",
    "MetricsCheckRequest",
    "NodeCapacity",
    "RegisteredType",
    "ResourceKeyCheck",
    "ResourceKeyCheckRequest",
    "check_metrics",
    "check_resource_key",
    "enforce_query_bounds",
    "registered_by",
]

# How a found key's message starts in English (`resource_key.found`).
FOUND_MESSAGE = "✓ Resource detected in the cluster."


class ResourceKeyCheckRequest(BaseModel):
    """The wizard's first step asks about one resource key."""

    model_config = ConfigDict(extra="forbid")
    resource_key: str
    # The type being edited: its own key is not a duplicate.
    editing: str | None = None


class MetricsCheckRequest(BaseModel):
    """The wizard's second step: drafts, so bad names and expressions come back as check results."""

    model_config = ConfigDict(extra="forbid")
    labels: LabelsDraft
    metrics: MetricsDraft
    # The fetcher the device type will use: its judgement of sample values applies to the check too.
    fetcher: str = GENERIC_FETCHER


class NodeCapacity(BaseModel):
    name: str
    capacity: int
    allocatable: int


class RegisteredType(BaseModel):
    """A device type already registered with a resource key: its id and display name."""

    id: str
    name: str


class ResourceKeyCheck(BaseModel):
    """`valid`: the key follows Kubernetes' rules (`problems` lists the broken ones); `found`: at least
    one node has some of it; `nodes`: every node that advertises it, with its counts;
    `registered_by`: the device type that already uses the key, if one does.

    `message` and `problems` are in English until `worded` puts them in a reader's language; `code`
    and `params` are `message` as data, and `problem_messages` holds each of `problems` as a
    `{code, params}`, in the same order."""

    valid: bool
    found: bool
    nodes: list[NodeCapacity] = Field(default_factory=list)
    message: str
    code: str
    params: dict[str, Any] = Field(default_factory=dict)
    problems: list[str] = Field(default_factory=list)
    problem_messages: list[MessageModel] = Field(default_factory=list)
    registered_by: RegisteredType | None = None

    @property
    def said(self) -> MessageModel:
        return MessageModel(code=self.code, params=self.params)

    def worded(self, language: Language) -> ResourceKeyCheck:
        """The same check with its sentences in `language`."""
        return self.model_copy(
            update={
                "message": self.said.text(language),
                "problems": [problem.text(language) for problem in self.problem_messages],
            }
        )

    @classmethod
    def of(cls, message: Message, **fields: Any) -> ResourceKeyCheck:
        said = MessageModel.of(message)
        return cls(message=said.text("en"), code=said.code, params=said.params, **fields)


def registered_by(
    key: str, types: Iterable[DeviceType], *, editing: str | None = None
) -> RegisteredType | None:
    """The first type (by id) other than `editing` whose resource key is `key`, or None."""
    using = sorted(
        (t for t in types if t.resource_key == key.strip() and t.id != editing), key=lambda t: t.id
    )
    return RegisteredType(id=using[0].id, name=using[0].name) if using else None


async def check_resource_key(
    key: str, cluster: ClusterReader | ClusterGateway, *, page_size: int = PAGE_SIZE
) -> ResourceKeyCheck:
    """Whether `key` is a valid extended-resource name and which nodes advertise it.

    Raises DependencyUnavailable when the node list cannot be read.
    """
    problems = [MessageModel.of(rule_message(key, problem.rule)) for problem in resource_key_violations(key)]
    if problems:
        return ResourceKeyCheck.of(
            Message("resource_key.invalid", {"key": key, "problems": [p.model_dump() for p in problems]}),
            valid=False,
            found=False,
            problems=[problem.text("en") for problem in problems],
            problem_messages=problems,
        )
    # A reader serves them from the watch-fed cache while it can; a gateway alone lists them.
    reader = cluster if isinstance(cluster, ClusterReader) else ClusterReader(cluster)
    nodes = await reader.nodes(page_size=page_size)
    advertising = [
        NodeCapacity(
            name=node.name, capacity=node.capacity_of(key) or 0, allocatable=node.allocatable_of(key) or 0
        )
        for node in nodes
        if key in node.capacity
    ]
    advertising.sort(key=lambda node: node.name)
    found = any(node.capacity > 0 for node in advertising)
    return ResourceKeyCheck.of(
        _presence_message(key, advertising, nodes), valid=True, found=found, nodes=advertising
    )


def _presence_message(key: str, advertising: list[NodeCapacity], nodes: list[NodeResources]) -> Message:
    if any(node.capacity > 0 for node in advertising):
        capacity = sum(node.capacity for node in advertising)
        allocatable = sum(node.allocatable for node in advertising)
        count = sum(1 for node in advertising if node.capacity > 0)
        return Message(
            "resource_key.found",
            {"key": key, "capacity": capacity, "count": count, "allocatable": allocatable},
        )
    if advertising:
        return Message("resource_key.zero_capacity", {"key": key, "count": len(advertising)})
    close = _similar_keys(key, nodes)
    if not close:
        return Message("resource_key.not_found", {"key": key, "count": len(nodes)})
    if len(close) == 1:
        return Message(
            "resource_key.not_found_similar", {"key": key, "count": len(nodes), "similar": close[0]}
        )
    return Message("resource_key.not_found_similar_many", {"key": key, "count": len(nodes), "similar": close})


def _similar_keys(key: str, nodes: list[NodeResources]) -> list[str]:
    names = sorted({name for node in nodes for name in node.capacity if is_extended_resource(name)})
    same_but_case = [name for name in names if name.lower() == key.lower()]
    return same_but_case or difflib.get_close_matches(key, names, n=3, cutoff=0.6)
