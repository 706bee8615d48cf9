"""Which prepared DRA devices the kubelet gives each container: claims named in `resources.claims`
(whole, or one request), and the KEP-5004 special claim by the pod's request mappings."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster.kubelet.dra_claims import (
    ClaimNotReady,
    PreparedClaim,
    PreparedDevice,
    check_usable,
    container_devices,
    pod_claim_names,
)

Obj = dict[str, Any]


def _device(name: str, request: str) -> PreparedDevice:
    return PreparedDevice("lpu.hyperaccel.ai", "n", name, (request,), (f"hyperaccel.ai/lpu=u-{request}",))


def _pod() -> Obj:
    return {
        "metadata": {"namespace": "ns", "name": "p", "uid": "pod-uid"},
        "spec": {
            "resourceClaims": [
                {"name": "shared", "resourceClaimName": "team-lpus"},
                {"name": "own", "resourceClaimTemplateName": "one-lpu"},
            ],
            "containers": [
                {"name": "both", "resources": {"claims": [{"name": "shared"}, {"name": "own"}]}},
                {"name": "big-only", "resources": {"claims": [{"name": "shared", "request": "big"}]}},
                {"name": "plain"},
                {"name": "bridged"},
            ],
        },
        "status": {
            "resourceClaimStatuses": [{"name": "own", "resourceClaimName": "p-own-x7k2"}],
            "extendedResourceClaimStatus": {
                "resourceClaimName": "p-extended-resources-abcde",
                "requestMappings": [
                    {
                        "containerName": "bridged",
                        "resourceName": "hyperaccel.ai/lpu",
                        "requestName": "container-3-request-0",
                    }
                ],
            },
        },
    }


def test_each_container_gets_the_devices_of_the_claims_and_requests_it_names() -> None:
    shared = PreparedClaim("ns", "team-lpus", "u1", [_device("lpu0", "small"), _device("lpu1", "big/fast")])
    own = PreparedClaim("ns", "p-own-x7k2", "u2", [_device("lpu2", "one")])
    special = PreparedClaim(
        "ns", "p-extended-resources-abcde", "u3", [_device("lpu3", "container-3-request-0")]
    )
    by_name = {c.name: c for c in (shared, own, special)}
    pod = _pod()
    got = {
        c["name"]: [d.device for d in container_devices(pod, c, by_name)] for c in pod["spec"]["containers"]
    }
    # A firstAvailable result (big/fast) serves the request it stands for (big).
    assert got == {"both": ["lpu0", "lpu1", "lpu2"], "big-only": ["lpu1"], "plain": [], "bridged": ["lpu3"]}
    assert pod_claim_names(pod) == ["team-lpus", "p-own-x7k2", "p-extended-resources-abcde"]


def test_a_claim_not_made_allocated_or_reserved_for_the_pod_yet_holds_the_pod_back() -> None:
    pod = _pod()
    del pod["status"]["resourceClaimStatuses"]
    with pytest.raises(ClaimNotReady, match="waiting for the claim of 'own'"):
        pod_claim_names(pod)
    with pytest.raises(ClaimNotReady, match="not found"):
        check_usable(None, pod, "team-lpus")
    with pytest.raises(ClaimNotReady, match="is not allocated"):
        check_usable({"status": {}}, pod, "team-lpus")
    allocated: Obj = {"status": {"allocation": {"devices": {}}, "reservedFor": [{"uid": "other"}]}}
    with pytest.raises(ClaimNotReady, match="pod ns/p is not allowed to use resource claim team-lpus"):
        check_usable(allocated, pod, "team-lpus")
    allocated["status"]["reservedFor"].append({"uid": "pod-uid"})
    assert check_usable(allocated, pod, "team-lpus") is allocated
