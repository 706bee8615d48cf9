"""The thermal routes through NuFi on the dev cluster: policies with their validation and audit, a
deployment's override, and a dry run; and leader election over a real Lease."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from nufi.cluster import ClusterGateway
from nufi.cluster.kube_rest import request_json
from nufi.cluster.lease import LeaderElector
from nufi.config import Settings
from nufi.thermal.policy import ThermalPolicy
from support.polling import stays_true, until
from support.world import World, deployment_body

CUSTOM_DEFAULTS = ThermalPolicy().custom.model_dump()
POLICY: dict[str, Any] = {
    "enabled": True,
    "trip_celsius": 90,
    "resume_celsius": 80,
    "trip_hold_seconds": 5,
    "resume_hold_seconds": 20,
    "scope": "device",
    "allow_full_shutoff": False,
    "taint_node": True,
    "overrides_may_disable": False,
    "override_max_trip_celsius": 100,
    "unhealthy": {"enabled": True, "trip_hold_seconds": 3, "resume_hold_seconds": 12},
    # Left at its defaults: test_thermal_dry_run.py sets one against a real Prometheus.
    "custom": CUSTOM_DEFAULTS,
    "breaker": {"max_node_share": 0.5, "max_replica_share": 0.75},
}


async def test_a_policy_is_set_listed_and_audited(nufi: httpx.AsyncClient, world: World) -> None:
    listed = (await nufi.get("/api/v1/thermal/policies", headers=world.user)).json()["items"]
    (lpu,) = [item for item in listed if item["device_type"] == "lpu"]
    assert lpu["source"] == "default" and lpu["policy"]["enabled"] is False
    put = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY, headers=world.admin)
    assert put.status_code == 200, put.text
    assert put.json()["policy"] == POLICY and put.json()["revision"] == 1
    listed = (await nufi.get("/api/v1/thermal/policies", headers=world.user)).json()["items"]
    (lpu,) = [item for item in listed if item["device_type"] == "lpu"]
    assert lpu["source"] == "admin" and lpu["updated_by"] == "admin" and lpu["policy"] == POLICY
    audit = (
        await nufi.get("/api/v1/admin/audit", params={"target_kind": "thermal_policy"}, headers=world.admin)
    ).json()["items"]
    assert audit[0]["target_id"] == "lpu" and audit[0]["after"] == POLICY
    assert audit[0]["before"]["source"] == "default"
    refused = await nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY, headers=world.user)
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"resume_celsius": 95}, "resume_celsius"),
        ({"trip_celsius": 200}, "trip_celsius"),
        ({"trip_hold_seconds": -1}, "trip_hold_seconds"),
        ({"scope": "rack"}, "scope"),
    ],
)
async def test_a_bad_policy_is_a_422_naming_the_field_and_changes_nothing(
    nufi: httpx.AsyncClient, world: World, change: dict[str, Any], field: str
) -> None:
    refused = await nufi.put(
        "/api/v1/admin/thermal/policies/lpu", json={**POLICY, **change}, headers=world.admin
    )
    assert refused.status_code == 422, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert field in refused.text
    listed = (await nufi.get("/api/v1/thermal/policies", headers=world.admin)).json()["items"]
    assert [item["source"] for item in listed if item["device_type"] == "lpu"] == ["default"]


async def test_a_policy_refused_is_told_in_korean(nufi: httpx.AsyncClient, world: World) -> None:
    korean = {**world.admin, "Accept-Language": "ko"}
    refused = await nufi.put(
        "/api/v1/admin/thermal/policies/lpu", json={**POLICY, "resume_celsius": 95}, headers=korean
    )
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["title"] == "입력 검증 실패"
    (error,) = body["errors"]
    assert error["code"] == "thermal_policy.resume_not_below_trip"
    assert {key: error["params"][key] for key in ("resume", "trip")} == {"resume": 95, "trip": 90}
    assert "resume_celsius (95)는 trip_celsius (90)보다 낮아야 합니다" in body["detail"], body["detail"]
    assert "must be below" not in body["detail"]


async def test_an_unknown_device_type_is_a_404(nufi: httpx.AsyncClient, world: World) -> None:
    missing = await nufi.put("/api/v1/admin/thermal/policies/no-such", json=POLICY, headers=world.admin)
    assert missing.status_code == 404, missing.text
    korean = {**world.admin, "Accept-Language": "ko"}
    missing = await nufi.put("/api/v1/admin/thermal/policies/no-such", json=POLICY, headers=korean)
    body = missing.json()
    assert (body["code"], body["params"]["device_type"]) == ("thermal.device_type_not_found", "no-such")
    assert body["title"] == "찾을 수 없음" and body["detail"].startswith("장치 유형 'no-such'이(가) 없습니다")


async def test_a_deployment_override_is_kept_on_the_deployment(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(replicas=0), headers=world.user
    )
    assert created.status_code == 201, created.text
    url = f"/api/v1/projects/{project}/deployments/llm/thermal"
    none = (await nufi.get(url, headers=world.user)).json()
    assert none["override"] is None and none["effective"]["trip_celsius"] == 85
    # Lowering the trip is a member's to choose; raising it needs an admin's bound.
    put = await nufi.put(url, json={"enabled": True, "trip_celsius": 80}, headers=world.user)
    assert put.status_code == 200, put.text
    assert put.json()["effective"]["trip_celsius"] == 80 and put.json()["effective"]["enabled"] is True
    # Resume at or above the trip the type's policy gives: refused by name, nothing written.
    bad = await nufi.put(url, json={"trip_celsius": 70}, headers=world.user)
    assert bad.status_code == 422 and bad.json()["field"] == "trip_celsius", bad.text
    kept = (await nufi.get(url, headers=world.user)).json()
    assert kept["override"] == {"enabled": True, "trip_celsius": 80, "resume_celsius": None}
    assert (await nufi.delete(url, headers=world.user)).status_code == 204
    assert (await nufi.get(url, headers=world.user)).json()["override"] is None
    missing = await nufi.get(f"/api/v1/projects/{project}/deployments/nope/thermal", headers=world.user)
    assert missing.status_code == 404


async def test_a_dry_run_of_a_policy_nothing_reached_cuts_nothing(
    nufi: httpx.AsyncClient, world: World
) -> None:
    # Other tests share this Prometheus and heat its LPUs: a trip no test reaches, and temperature only.
    unreached = {
        **POLICY,
        "trip_celsius": 150,
        "resume_celsius": 140,
        "override_max_trip_celsius": None,
        "unhealthy": {**POLICY["unhealthy"], "enabled": False},
    }
    ran = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run", json={"policy": unreached}, headers=world.admin
    )
    assert ran.status_code == 200, ran.text
    body = ran.json()
    assert body["device_type"] == "lpu" and body["policy"] == unreached
    # Whatever LPUs this Prometheus recorded (none when this module runs alone), none is cut.
    assert body["conditions"] == ["temperature"]
    assert all(node["cut_seconds"] == 0 and not node["transitions"] for node in body["nodes"])
    assert body["episodes"] == [] and body["breaker"] == []
    refused = await nufi.post(
        "/api/v1/admin/thermal/policies/lpu/dry-run", json={"policy": unreached}, headers=world.user
    )
    assert refused.status_code == 403


async def test_the_status_answers_with_this_replica_and_the_types_it_watches(
    nufi: httpx.AsyncClient, world: World
) -> None:
    status = await nufi.get("/api/v1/thermal/status", headers=world.user)
    assert status.status_code == 200, status.text
    assert status.json()["identity"]


async def test_of_two_electors_one_leads_and_the_other_takes_over(world: World) -> None:
    cluster = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
    try:
        electors = [
            LeaderElector(
                cluster,
                namespace="default",
                name="thermal-test",
                identity=name,
                lease_seconds=2,
                renew_deadline_seconds=1.5,
                retry_seconds=0.2,
            )
            for name in ("a", "b")
        ]
        for elector in electors:
            elector.start()
        await until(lambda: _one_leads(electors), within=10)
        await stays_true(lambda: sum(e.is_leader for e in electors) == 1, for_seconds=1)
        leader = next(e for e in electors if e.is_leader)
        other = next(e for e in electors if e is not leader)
        # Stopped without releasing (a crash): the other takes over once the lease has expired.
        await leader.close(release=False)
        await until(lambda: _leads(other), within=10)
        lease = await _lease(cluster)
        assert lease["spec"]["holderIdentity"] == other.identity
        assert lease["spec"]["leaseTransitions"] >= 1
        renew = lease["spec"]["renewTime"]
        assert len(renew.split(".")[1].rstrip("Z")) == 6, renew  # MicroTime: six fractional digits
        # Released on close: the lease is free at once.
        await other.close()
        lease = await _lease(cluster)
        assert lease["spec"]["holderIdentity"] == "" and lease["spec"]["leaseDurationSeconds"] == 1
    finally:
        await cluster.close()


async def test_a_silent_leader_is_replaced_once_its_lease_expires_by_the_follower_s_own_clock(
    world: World,
) -> None:
    """Stepped by hand on a clock of the test's: when each replica may lead, to the renew deadline."""
    cluster = ClusterGateway.from_settings(Settings(kubeconfig=world.cluster.kubeconfig))
    now = [0.0]
    a, b = (
        LeaderElector(
            cluster,
            namespace="default",
            name="thermal-clocked",
            identity=name,
            lease_seconds=2,
            renew_deadline_seconds=1.5,
            clock=lambda: now[0],
        )
        for name in ("a", "b")
    )

    async def at(moment: float, elector: LeaderElector) -> bool:
        now[0] = moment
        return await elector.try_acquire_or_renew()

    try:
        assert await at(0.0, a) and a.is_leader
        assert not await at(0.0, b) and b.holder == "a"
        # a renews at 1.0; b sees the record change when it next looks (2.5) and waits from then.
        assert await at(1.0, a)
        assert not await at(2.5, b)
        assert not await at(4.4, b)
        # a went silent after 1.0: it stops leading at its renew deadline, before anyone may take over.
        now[0] = 2.5
        assert not a.is_leader
        assert await at(4.5, b) and b.is_leader
        lease = await _lease(cluster, "thermal-clocked")
        assert lease["spec"]["holderIdentity"] == "b" and lease["spec"]["leaseTransitions"] == 1
        # a comes back: b holds an unexpired lease, so a follows.
        assert not await at(4.6, a) and a.holder == "b"
        # b releases; a takes over at once, and that change of holder counts too.
        await b.close()
        assert await at(4.7, a)
        lease = await _lease(cluster, "thermal-clocked")
        assert lease["spec"]["holderIdentity"] == "a" and lease["spec"]["leaseTransitions"] == 2
    finally:
        await cluster.close()


async def _one_leads(electors: list[LeaderElector]) -> bool:
    return sum(e.is_leader for e in electors) == 1


async def _leads(elector: LeaderElector) -> bool:
    return elector.is_leader


async def _lease(cluster: ClusterGateway, name: str = "thermal-test") -> dict[str, Any]:
    return await request_json(
        cluster, "GET", f"/apis/coordination.k8s.io/v1/namespaces/default/leases/{name}"
    )
