"""What pods and claims charge against a quota, and the sums quota keeps (pkg/quota/v1/evaluator/core)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.quota import amounts
from nufi_sandbox.devcluster.quota.amounts import Amount
from nufi_sandbox.devcluster.quota.evaluators import ClaimEvaluator, PodEvaluator, evaluators_for
from nufi_sandbox.devcluster.validation.quantity import QuantityFormat, parse_quantity

LPU = "hyperaccel.ai/lpu"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def container(name: str, requests: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "x", "resources": {"requests": requests or {}}, **extra}


def shown(usage: dict[str, Amount]) -> dict[str, str]:
    return amounts.as_text(usage)


def test_pod_charges_requests_limits_and_requests_prefixed_extended_resources() -> None:
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "resources": {
                        "requests": {"cpu": "250m", "memory": "1Gi", LPU: "2"},
                        "limits": {"cpu": "1", LPU: "2"},
                    },
                },
                container("b", {"cpu": "250m"}),
            ]
        }
    }
    assert shown(PodEvaluator().usage(pod, NOW)) == {
        "count/pods": "1",
        "cpu": "500m",
        "limits.cpu": "1",
        "memory": "1Gi",
        "pods": "1",
        "requests.cpu": "500m",
        f"requests.{LPU}": "2",
        "requests.memory": "1Gi",
    }


def test_init_containers_count_by_the_max_rule_and_sidecars_add() -> None:
    spec = {
        "containers": [container("app", {"cpu": "1"})],
        "initContainers": [
            container("setup", {"cpu": "3"}),
            container("proxy", {"cpu": "500m"}, restartPolicy="Always"),
            container("late", {"cpu": "2"}),
        ],
    }
    # Sidecar 0.5 runs beside the app (1.5); `late` runs beside the sidecar (2.5); `setup` alone is 3.
    assert shown(PodEvaluator().usage({"spec": spec}, NOW))["requests.cpu"] == "3"
    spec["initContainers"][0]["resources"]["requests"]["cpu"] = "1"
    assert shown(PodEvaluator().usage({"spec": spec}, NOW))["requests.cpu"] == "2500m"


def test_terminal_and_long_deleting_pods_charge_only_their_object_count() -> None:
    spec = {"containers": [container("a", {LPU: "1"})]}
    for phase in ("Succeeded", "Failed"):
        pod = {"spec": spec, "status": {"phase": phase}}
        assert shown(PodEvaluator().usage(pod, NOW)) == {"count/pods": "1"}
    deleting = {
        "metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z", "deletionGracePeriodSeconds": 30},
        "spec": spec,
    }
    assert "pods" in PodEvaluator().usage(deleting, NOW + timedelta(seconds=30))
    assert shown(PodEvaluator().usage(deleting, NOW + timedelta(seconds=31))) == {"count/pods": "1"}


def test_must_specify_names_each_missing_resource_and_its_containers() -> None:
    pod = {"spec": {"containers": [container("b"), container("a", {"cpu": "1"})]}}
    tracked = ["requests.cpu", "limits.memory", f"requests.{LPU}"]
    assert PodEvaluator().constraints(tracked, pod) == (
        "must specify limits.memory for: a,b; requests.cpu for: b"
    )
    # Extended resources never demand to be stated.
    assert PodEvaluator().constraints([f"requests.{LPU}"], pod) == ""


def test_claims_charge_whole_bytes_of_the_larger_of_request_and_allocation() -> None:
    claim = {
        "spec": {"storageClassName": "fast", "resources": {"requests": {"storage": "1500m"}}},
        "status": {"allocatedResources": {"storage": "1"}},
    }
    assert shown(ClaimEvaluator().usage(claim, NOW)) == {
        "count/persistentvolumeclaims": "1",
        "fast.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
        "fast.storageclass.storage.k8s.io/requests.storage": "2",
        "persistentvolumeclaims": "1",
        "requests.storage": "2",
    }


def test_only_requests_prefixed_extended_names_are_counted() -> None:
    names = [f"requests.{LPU}", f"limits.{LPU}", "count/deployments.apps", "configmaps"]
    matched = {name for e in evaluators_for(names) for name in e.matching(names)}
    assert matched == {f"requests.{LPU}", "count/deployments.apps", "configmaps"}


_QUANTITIES = st.builds(
    lambda n, suffix: f"{n}{suffix}",
    st.integers(min_value=0, max_value=10**6),
    st.sampled_from(["", "m", "k", "Mi", "Gi", "M"]),
)


@given(st.lists(_QUANTITIES, max_size=12))
def test_sums_are_exact_and_print_as_quantities_that_read_back(texts: list[str]) -> None:
    total: dict[str, Amount] = {}
    for text in texts:
        total = amounts.add(total, amounts.parse_list({"r": text}))
    expected = sum((parse_quantity(t) for t in texts), Decimal(0))
    assert total.get("r", amounts.ZERO).value == expected
    if texts:
        assert parse_quantity(str(total["r"])) == expected


def test_a_sum_takes_the_format_of_its_first_non_zero_term() -> None:
    zero = Amount(Decimal(0), QuantityFormat.DECIMAL_SI)
    gib = amounts.parse_list({"m": "1Gi"})["m"]
    assert str(zero.plus(gib).plus(gib)) == "2Gi"
    assert amounts.pretty({"b": gib, "a": zero}) == "a=0,b=1Gi"
