"""The pod attribution fallback from the cluster: exact when certain, node level otherwise."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.cluster.inventory import BoundPod
from nufi.monitoring.snapshots.attribution import PodHolding, attribute_node, holdings_by_node

LPU = "hyperaccel.ai/lpu"


def pod(name: str, node: str, amount: int, namespace: str = "default", key: str = LPU) -> BoundPod:
    return BoundPod(namespace, name, node, "Running", {key: amount} if amount else {})


def test_holdings_keep_only_pods_holding_the_key_sorted_per_node() -> None:
    pods = [
        pod("b", "n1", 1),
        pod("a", "n1", 2, namespace="z"),
        pod("a", "n1", 1, namespace="m"),
        pod("cpu-only", "n1", 0),
        pod("gpu", "n2", 4, key="nvidia.com/gpu"),
        pod("c", "n3", 8),
    ]
    assert holdings_by_node(pods, LPU) == {
        "n1": (PodHolding("default", "b", 1), PodHolding("m", "a", 1), PodHolding("z", "a", 2)),
        "n3": (PodHolding("default", "c", 8),),
    }


def test_no_pod_no_attribution() -> None:
    found = attribute_node((), capacity=4, reported_devices=4, exporter_attributes=False)
    assert (found.pods, found.workload, found.device_owner) == ((), None, None)


def test_one_pod_holding_every_device_owns_each_of_them() -> None:
    solo = PodHolding("serving", "llm-0", 4)
    found = attribute_node([solo], capacity=4, reported_devices=4, exporter_attributes=False)
    assert found.workload == "serving/llm-0"
    assert found.device_owner == solo


def test_one_pod_holding_some_devices_is_named_at_node_level_only() -> None:
    partial = PodHolding("serving", "llm-0", 2)
    found = attribute_node([partial], capacity=4, reported_devices=4, exporter_attributes=False)
    assert found.workload == "serving/llm-0" and found.pods == (partial,)
    assert found.device_owner is None


def test_unreported_devices_still_count_against_certainty() -> None:
    # Four devices advertised, two report, the pod holds two: which two is unknown.
    holder = PodHolding("serving", "llm-0", 2)
    found = attribute_node([holder], capacity=4, reported_devices=2, exporter_attributes=False)
    assert found.device_owner is None


def test_several_pods_share_the_node() -> None:
    pods = [PodHolding("a", "x", 1), PodHolding("b", "y", 1), PodHolding("c", "z", 2)]
    found = attribute_node(pods, capacity=4, reported_devices=4, exporter_attributes=False)
    assert found.workload == "shared by 3 pods"
    assert found.device_owner is None and found.pods == tuple(pods)


def test_the_cluster_never_overrides_an_exporter_that_attributes() -> None:
    solo = PodHolding("serving", "llm-0", 4)
    found = attribute_node([solo], capacity=4, reported_devices=4, exporter_attributes=True)
    assert found.device_owner is None
    assert found.workload == "serving/llm-0"


@given(
    holders=st.lists(
        st.builds(
            PodHolding, st.sampled_from(["a", "b"]), st.text(min_size=1, max_size=5), st.integers(1, 16)
        ),
        max_size=4,
    ),
    capacity=st.integers(0, 16),
    reported=st.integers(0, 16),
    exporter=st.booleans(),
)
def test_a_device_owner_is_never_invented(
    holders: list[PodHolding], capacity: int, reported: int, exporter: bool
) -> None:
    found = attribute_node(
        holders, capacity=capacity, reported_devices=reported, exporter_attributes=exporter
    )
    if found.device_owner is not None:
        # Only the single holding pod, only when it holds at least every device there is.
        assert holders == [found.device_owner]
        assert found.device_owner.devices >= max(capacity, reported) and reported > 0 and not exporter
    if len(holders) > 1:
        assert found.workload == f"shared by {len(holders)} pods"
    assert (found.workload is None) == (not holders)
