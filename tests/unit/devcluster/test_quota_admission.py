"""ResourceQuota admission and status on the dev cluster's store, checked against kube-apiserver's wording."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.storage.store import Store

LPU = "hyperaccel.ai/lpu"
Obj = dict[str, Any]


class Cluster:
    def __init__(self) -> None:
        self.store = Store(ResourceRegistry.with_builtins())

    def rt(self, plural: str) -> Any:
        return self.store.rt("", "v1", plural)

    def quota(self, name: str, hard: dict[str, str]) -> Obj:
        return self.store.create(
            self.rt("resourcequotas"), "default", {"metadata": {"name": name}, "spec": {"hard": hard}}
        )

    def status(self, name: str) -> Obj:
        return dict(self.store.get(self.rt("resourcequotas"), "default", name)["status"])

    def pod(self, name: str = "", limits: dict[str, str] | None = None, **meta: str) -> Obj:
        resources = {"limits": limits} if limits else {}
        body = {
            "metadata": {"name": name, **meta} if name else dict(meta),
            "spec": {"containers": [{"name": "app", "image": "x", "resources": resources}]},
        }
        return self.store.create(self.rt("pods"), "default", body)

    def refusal(self, **kwargs: Any) -> errors.ApiError:
        with pytest.raises(errors.ApiError) as raised:
            self.pod(**kwargs)
        return raised.value


def test_exceeding_pod_is_forbidden_with_the_apiserver_message() -> None:
    c = Cluster()
    c.quota("team", {f"requests.{LPU}": "2"})
    c.pod("a", {LPU: "1"})
    c.pod("b", {LPU: "1"})
    refused = c.refusal(name="c", limits={LPU: "1"})
    assert (refused.code, refused.reason) == (403, "Forbidden")
    assert refused.status()["message"] == (
        f'pods "c" is forbidden: exceeded quota: team, requested: requests.{LPU}=1, '
        f"used: requests.{LPU}=2, limited: requests.{LPU}=2"
    )
    assert refused.status()["details"] == {"name": "c", "kind": "pods"}


def test_a_generated_name_is_shown_as_generated() -> None:
    c = Cluster()
    c.quota("team", {"pods": "0"})
    message = c.refusal(generateName="web-").status()["message"]
    assert message.startswith('pods "web-') and not message.startswith('pods "web-"')
    assert message.endswith("exceeded quota: team, requested: pods=1, used: pods=0, limited: pods=0")


def test_every_quota_of_the_namespace_must_allow_the_pod() -> None:
    c = Cluster()
    c.quota("a-roomy", {f"requests.{LPU}": "8", "pods": "10"})
    c.quota("b-tight", {f"requests.{LPU}": "1"})
    c.pod("one", {LPU: "1"})
    assert "exceeded quota: b-tight," in c.refusal(name="two", limits={LPU: "1"}).message
    # A quota on something the pod does not use leaves it alone.
    c.pod("plain")


def test_quota_on_cpu_demands_a_request_from_every_container() -> None:
    c = Cluster()
    c.quota("cpu", {"requests.cpu": "4"})
    assert c.refusal(name="bare").message == (
        'pods "bare" is forbidden: failed quota: cpu: must specify requests.cpu for: app'
    )


def test_limits_prefixed_extended_quota_is_stored_but_never_enforced() -> None:
    c = Cluster()
    c.quota("team", {f"limits.{LPU}": "1"})
    c.pod("a", {LPU: "4"})
    assert c.status("team") == {"hard": {f"limits.{LPU}": "1"}, "used": {}}


def test_used_follows_pods_as_they_come_finish_and_go() -> None:
    c = Cluster()
    c.quota("team", {f"requests.{LPU}": "4", "count/pods": "10"})
    assert c.status("team")["used"] == {"count/pods": "0", f"requests.{LPU}": "0"}
    c.pod("a", {LPU: "1"})
    c.pod("b", {LPU: "2"})
    assert c.status("team")["used"] == {"count/pods": "2", f"requests.{LPU}": "3"}
    c.store.mutate(
        c.rt("pods"), "default", "a", lambda p: p["status"].update(phase="Succeeded"), subresource="status"
    )
    assert c.status("team")["used"] == {"count/pods": "2", f"requests.{LPU}": "2"}
    c.store.delete(c.rt("pods"), "default", "b")
    assert c.status("team")["used"] == {"count/pods": "1", f"requests.{LPU}": "0"}


def test_raising_a_quota_updates_its_status_and_admits_again() -> None:
    c = Cluster()
    c.quota("team", {f"requests.{LPU}": "1"})
    c.pod("a", {LPU: "1"})
    c.refusal(name="b", limits={LPU: "1"})
    c.store.mutate(
        c.rt("resourcequotas"),
        "default",
        "team",
        lambda q: q["spec"]["hard"].update({f"requests.{LPU}": "2"}),
    )
    assert c.status("team")["hard"] == {f"requests.{LPU}": "2"}
    c.pod("b", {LPU: "1"})


def test_claims_are_charged_on_create_and_on_growth() -> None:
    c = Cluster()
    c.quota("disk", {"requests.storage": "10Gi", "persistentvolumeclaims": "2"})
    claims = c.rt("persistentvolumeclaims")

    def claim(name: str, size: str) -> Obj:
        spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
        return c.store.create(claims, "default", {"metadata": {"name": name}, "spec": spec})

    claim("a", "6Gi")
    with pytest.raises(errors.ApiError) as raised:
        claim("b", "5Gi")
    assert raised.value.message == (
        'persistentvolumeclaims "b" is forbidden: exceeded quota: disk, requested: requests.storage=5Gi, '
        "used: requests.storage=6Gi, limited: requests.storage=10Gi"
    )
    claim("b", "4Gi")
    with pytest.raises(errors.ApiError):
        c.store.mutate(
            claims, "default", "a", lambda o: o["spec"]["resources"]["requests"].update(storage="7Gi")
        )
    assert c.status("disk")["used"] == {"persistentvolumeclaims": "2", "requests.storage": "10Gi"}


def test_dry_run_is_checked_but_not_charged() -> None:
    c = Cluster()
    c.quota("team", {"pods": "1"})
    body = {"metadata": {"name": "a"}, "spec": {"containers": [{"name": "app", "image": "x"}]}}
    c.store.create(c.rt("pods"), "default", body, dry_run=True)
    assert c.status("team")["used"] == {"pods": "0"}


def test_a_scoped_quota_applies_only_to_the_pods_its_scopes_select() -> None:
    c = Cluster()
    body = {"metadata": {"name": "batch"}, "spec": {"hard": {"pods": "1"}, "scopes": ["Terminating"]}}
    c.store.create(c.rt("resourcequotas"), "default", body)
    c.pod("service-a")
    c.pod("service-b")
    assert c.status("batch")["used"] == {"pods": "0"}
    job = {
        "metadata": {"name": "job-a"},
        "spec": {"activeDeadlineSeconds": 60, "containers": [{"name": "app", "image": "x"}]},
    }
    c.store.create(c.rt("pods"), "default", job)
    assert c.status("batch")["used"] == {"pods": "1"}
    with pytest.raises(errors.ApiError) as raised:
        c.store.create(c.rt("pods"), "default", {**job, "metadata": {"name": "job-b"}})
    assert "exceeded quota: batch, requested: pods=1, used: pods=1, limited: pods=1" in raised.value.message
