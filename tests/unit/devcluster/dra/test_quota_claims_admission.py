"""Device claims on the dev cluster's store: charged at creation, refused with kube-apiserver's message."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.storage.store import Store

Obj = dict[str, Any]
LPU = "hyperaccel.ai/lpu"
DEVICES = "lpu.hyperaccel.ai.deviceclass.resource.k8s.io/devices"
IMPLICIT = "requests.deviceclass.resource.kubernetes.io/lpu.hyperaccel.ai"


class Cluster:
    def __init__(self) -> None:
        self.store = Store(ResourceRegistry.with_builtins())
        self.store.create(
            self.rt("deviceclasses"),
            "",
            {"metadata": {"name": "lpu.hyperaccel.ai"}, "spec": {"extendedResourceName": LPU}},
        )

    def rt(self, plural: str) -> Any:
        group, version = ("", "v1") if plural in ("pods", "resourcequotas") else ("resource.k8s.io", "v1")
        return self.store.rt(group, version, plural)

    def quota(self, hard: dict[str, str]) -> None:
        body = {"metadata": {"name": "team"}, "spec": {"hard": hard}}
        self.store.create(self.rt("resourcequotas"), "default", body)

    def used(self) -> dict[str, str]:
        return dict(self.store.get(self.rt("resourcequotas"), "default", "team")["status"]["used"])

    def claim(self, name: str, count: int) -> Obj:
        request = {"name": "lpu", "exactly": {"deviceClassName": "lpu.hyperaccel.ai", "count": count}}
        body = {"metadata": {"name": name}, "spec": {"devices": {"requests": [request]}}}
        return self.store.create(self.rt("resourceclaims"), "default", body)

    def pod(self, name: str, lpus: str) -> Obj:
        container = {"name": "app", "image": "x", "resources": {"limits": {LPU: lpus}}}
        return self.store.create(
            self.rt("pods"), "default", {"metadata": {"name": name}, "spec": {"containers": [container]}}
        )


def test_a_claim_past_the_devices_of_its_class_is_forbidden_with_the_apiserver_message() -> None:
    c = Cluster()
    c.quota({DEVICES: "3", "count/resourceclaims.resource.k8s.io": "5"})
    c.claim("a", 2)
    with pytest.raises(errors.ApiError) as raised:
        c.claim("b", 2)
    assert raised.value.code == 403
    assert raised.value.status()["message"] == (
        'resourceclaims.resource.k8s.io "b" is forbidden: exceeded quota: team, '
        f"requested: {DEVICES}=2, used: {DEVICES}=2, limited: {DEVICES}=3"
    )
    c.claim("b", 1)
    assert c.used() == {DEVICES: "3", "count/resourceclaims.resource.k8s.io": "2"}


def test_pods_and_claims_share_the_bridged_quota_and_used_shows_both() -> None:
    c = Cluster()
    c.quota({f"requests.{LPU}": "4", IMPLICIT: "8"})
    c.pod("limits", "1")
    c.claim("a", 2)
    # The pod asked by the extended resource, the claim by the class: both count under the one name.
    assert c.used() == {f"requests.{LPU}": "3", IMPLICIT: "2"}
    with pytest.raises(errors.ApiError) as raised:
        c.claim("b", 2)
    over = f"requests.{LPU}"
    assert raised.value.status()["message"].endswith(
        f"exceeded quota: team, requested: {over}=2, used: {over}=3, limited: {over}=4"
    )
    c.store.delete(c.rt("resourceclaims"), "default", "a")
    assert c.used() == {f"requests.{LPU}": "1", IMPLICIT: "0"}
