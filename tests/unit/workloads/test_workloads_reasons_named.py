"""Why a workload waits, broke or is refused names its device type as a person knows it, in Korean and
English: never the type's resource key, whether NuFi counted the devices itself or Kubernetes said it
("Insufficient hyperaccel.ai/lpu", "OutOfhyperaccel.ai/lpu", a quota's "requests.hyperaccel.ai/lpu")."""

from __future__ import annotations

from typing import cast

import pytest

from nufi.cluster import ClusterReader
from nufi.cluster.inventory import BoundPod, NodeResources
from nufi.cluster.state import ClusterState
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.fetcher_registry import FetcherRegistry, builtin_fetchers
from nufi.devices.spec import DeviceType
from nufi.errors import ValidationFailed
from nufi.messages import Message, render
from nufi.workloads.accelerators import AcceleratorRequest, AcceleratorService, Placement
from nufi.workloads.kube_reasons import deployment_failure, pod_failure, scheduler_reason
from support.languages import korean_in, wrong_language
from support.lpu_type import lpu_type

LPU = DeviceType.model_validate({**lpu_type(), "kind": "custom"})
KEY = LPU.resource_key
PLACED = Placement(LPU.id, KEY, 2)


class _Catalog:
    def __init__(self, found: DeviceType = LPU) -> None:
        self.found = found

    async def find(self, device_type_id: str) -> DeviceType | None:
        return self.found if device_type_id == LPU.id else None


class _Reader:
    """Two LPU nodes, `free` devices left on each of four (two held by a pod on the first)."""

    def __init__(self, *allocatable: int) -> None:
        self.nodes = tuple(
            NodeResources(f"lpu-node-{i}", {KEY: str(n)}, {KEY: str(n)}) for i, n in enumerate(allocatable, 1)
        )

    async def state(self) -> ClusterState:
        held = BoundPod("team", "hold", "lpu-node-1", "Running", {KEY: 2})
        return ClusterState(self.nodes, (held,) if self.nodes else ())


def _service(*allocatable: int, found: DeviceType = LPU) -> AcceleratorService:
    return AcceleratorService(
        cast(DeviceCatalog, _Catalog(found)),
        FetcherRegistry(builtin_fetchers()),
        cast(ClusterReader, _Reader(*allocatable)),
    )


def _assert_named(message: Message) -> None:
    for language in ("en", "ko"):
        text = render(language, message.code, message.params)
        assert KEY not in text and LPU.name in text, (language, text)
        assert not wrong_language(text, language), (language, text)
    assert korean_in(render("ko", message.code, message.params)), message


@pytest.mark.parametrize(
    ("allocatable", "count", "code"),
    [
        ((), 2, "workload.pending.no_node_has_key"),
        ((3, 2), 3, "workload.pending.no_free"),
        ((4, 2), 2, "workload.pending.ruled_out"),
    ],
)
async def test_a_pending_reason_counted_by_nufi_names_the_type(
    allocatable: tuple[int, ...], count: int, code: str
) -> None:
    reason = await _service(*allocatable).pending_reason(Placement(LPU.id, KEY, count))
    assert reason.code == code
    # The key stays a param, for a client; only the sentence names the type.
    assert reason.params["resource_key"] == KEY
    _assert_named(reason)


@pytest.mark.parametrize(("allocatable", "count"), [((0,), 1), ((4, 2), 7)])
async def test_a_request_no_node_can_ever_take_is_refused_naming_the_type(
    allocatable: tuple[int, ...], count: int
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await _service(*allocatable).resolve(AcceleratorRequest(device_type=LPU.id, count=count))
    assert refused.value.params["resource_key"] == KEY
    _assert_named(Message(refused.value.code, {**refused.value.params, "most": 4}))


async def test_a_disabled_type_is_refused_by_its_name() -> None:
    disabled = LPU.model_copy(update={"enabled": False})
    with pytest.raises(ValidationFailed) as refused:
        await _service(4, found=disabled).resolve(AcceleratorRequest(device_type=LPU.id, count=1))
    assert (refused.value.code, refused.value.params["device_type"]) == ("accelerator.type_disabled", LPU.id)
    _assert_named(Message(refused.value.code, refused.value.params))


QUOTA = (
    f'pods "big-1" is forbidden: exceeded quota: nufi-accelerators, requested: requests.{KEY}=2, '
    f"used: requests.{KEY}=3, limited: requests.{KEY}=4"
)


@pytest.mark.parametrize(
    "said",
    [
        scheduler_reason(f"0/2 nodes are available: 2 Insufficient {KEY}. preemption: not helpful."),
        pod_failure({"phase": "Failed", "reason": f"OutOf{KEY}", "message": "Pod was rejected"}),
        pod_failure(
            {
                "phase": "Failed",
                "reason": "UnexpectedAdmissionError",
                "message": f"devices unavailable for {KEY}",
            }
        ),
        deployment_failure({"type": "ReplicaFailure", "reason": "FailedCreate", "message": QUOTA}),
        Message(
            "workload.pending.with_scheduler",
            {
                "reason": Message("workload.pending.waiting"),
                "scheduler": scheduler_reason(
                    f"0/3 nodes are available: 1 Insufficient {KEY}, 2 Insufficient cpu."
                ),
            },
        ),
    ],
)
async def test_kubernetes_words_naming_the_key_are_read_with_the_types_name(said: Message) -> None:
    named = await _service(4).named(said, PLACED)
    assert named is not None
    _assert_named(named)
    # What Kubernetes said stays whole, for a tooltip.
    assert KEY in render("en", said.code, said.params)


async def test_a_reason_about_another_resource_is_kept_as_it_is() -> None:
    said = scheduler_reason("0/2 nodes are available: 2 Insufficient cpu.")
    assert await _service(4).named(said, PLACED) is said
