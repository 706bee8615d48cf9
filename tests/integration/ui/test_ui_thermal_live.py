"""Admin → Thermal stays live without a reload: a saved policy shows as the admin's (saved on the page
or by another admin elsewhere), a recorded transition shows in the live table and the history, and a
card being edited keeps what the admin typed while the page refreshes around it."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.auth import Principal
from nufi.messages import Message
from nufi.thermal.history.records import ThermalEvent
from nufi.thermal.policy import ThermalPolicy
from nufi.thermal.protection.status import DeviceTypeStatus, NodeStatus, PodTraffic, ThermalStatus
from support.polling import eventually, until

from .people import PEOPLE
from .wizard_world import as_, attached_services, shown

PAGE = "/admin/thermal"
ADMIN = PEOPLE["admin"]
# The page refreshes every LIVE_SECONDS (2 s); a few passes.
WITHIN = 15.0


async def opened(user: User, language: str) -> tuple[str, ThermalPolicy]:
    """The Thermal page opened as the admin; the first device type and its stored policy."""
    first = (await attached_services().thermal.policies(ADMIN))[0]
    await as_(user, "admin", language).open(PAGE)
    # A page that takes a while is answered first and finished over the socket: wait for its end.
    await eventually(lambda: user.find(marker="thermal-history"), within=WITHIN)
    return first.device_type, first.policy


async def named(kind: str) -> str:
    """The catalog name of type `kind`: what the page calls it."""
    (device_type,) = [d for d in await attached_services().catalog.list(ADMIN) if d.id == kind]
    assert device_type.name != kind, "the test needs a name other than the id to tell them apart"
    return device_type.name


def table_rows(user: User, marker: str) -> list[dict[str, Any]]:
    with user:
        (table,) = user.find(marker=marker).elements
        assert isinstance(table, ui.table), table
        return list(table.rows)


def trip_field(user: User, kind: str) -> ui.number:
    (found,) = user.find(marker=f"thermal-trip-{kind}").elements
    assert isinstance(found, ui.number), found
    return found


def sees(user: User, marker: str, *expected: str) -> Callable[[], None]:
    def check() -> None:
        text = shown(user, marker)
        for part in expected:
            assert part in text, f"{part!r} not in {marker}: {text!r}"

    return check


def no_text(user: User, marker: str) -> None:
    assert shown(user, marker) == "", shown(user, marker)


async def test_a_policy_saved_on_the_page_shows_as_the_admins(offline: User) -> None:
    kind, policy = await opened(offline, "ko")
    name = await named(kind)
    assert shown(offline, f"thermal-source-{kind}") == f"{name} · 기본값"
    offline.find(marker=f"thermal-trip-{kind}").clear().type(f"{policy.trip_celsius + 1:g}")
    offline.find(marker=f"thermal-save-{kind}").click()

    await eventually(sees(offline, f"thermal-source-{kind}", f"{name} · 관리자 설정"), within=WITHIN)
    stored = await attached_services().thermal.policy(ADMIN, kind)
    assert stored.source == "admin" and stored.policy.trip_celsius == policy.trip_celsius + 1


async def test_an_unnamed_own_condition_reads_in_korean_and_is_saved_unnamed(offline: User) -> None:
    kind, policy = await opened(offline, "ko")
    assert policy.custom.name == "custom"
    (field,) = offline.find(marker=f"thermal-custom-name-{kind}").elements
    assert isinstance(field, ui.input)
    # Not the stored default's English word: an empty field saying what the condition is then called.
    assert field.value == "" and field.props["placeholder"] == "사용자 정의 조건"
    offline.find(marker=f"thermal-save-{kind}").click()
    await eventually(sees(offline, f"thermal-source-{kind}", "관리자 설정"), within=WITHIN)
    assert (await attached_services().thermal.policy(ADMIN, kind)).policy.custom.name == "custom"
    offline.find(marker=f"thermal-custom-name-{kind}").type("ECC 오류")
    offline.find(marker=f"thermal-save-{kind}").click()

    async def named_by_the_admin() -> bool:
        return (await attached_services().thermal.policy(ADMIN, kind)).policy.custom.name == "ECC 오류"

    await until(named_by_the_admin, within=WITHIN, what="the condition's name saved")


async def test_the_advanced_settings_fold_away_while_at_their_defaults(offline: User) -> None:
    kind, policy = await opened(offline, "en")

    def folded() -> bool:
        (fold,) = offline.find(marker=f"thermal-advanced-{kind}").elements
        assert isinstance(fold, ui.expansion)
        return not fold.value

    assert folded()
    watching = policy.model_copy(update={"unhealthy": policy.unhealthy.model_copy(update={"enabled": True})})
    await attached_services().thermal.put_policy(ADMIN, kind, watching)
    await opened(offline, "en")
    assert not folded()


async def test_a_policy_saved_by_another_admin_shows_in_place(offline: User) -> None:
    kind, policy = await opened(offline, "en")
    name = await named(kind)
    assert shown(offline, f"thermal-source-{kind}") == f"{name} · default"
    raised = policy.model_copy(update={"trip_celsius": policy.trip_celsius + 2})
    await attached_services().thermal.put_policy(ADMIN, kind, raised)

    def updated() -> None:
        assert shown(offline, f"thermal-source-{kind}") == f"{name} · set by an admin"
        assert trip_field(offline, kind).value == raised.trip_celsius

    await eventually(updated, within=WITHIN)


async def test_an_unsaved_edit_stays_while_the_page_refreshes(offline: User) -> None:
    kind, policy = await opened(offline, "ko")
    name = await named(kind)
    typed = policy.trip_celsius + 5
    offline.find(marker=f"thermal-trip-{kind}").clear().type(f"{typed:g}")
    elsewhere = policy.model_copy(update={"trip_celsius": policy.trip_celsius + 2})
    await attached_services().thermal.put_policy(ADMIN, kind, elsewhere)

    # The source can only read 관리자 설정 once a refresh has brought the policy saved elsewhere.
    await eventually(sees(offline, f"thermal-source-{kind}", f"{name} · 관리자 설정"), within=WITHIN)
    assert trip_field(offline, kind).value == typed
    assert "그 사이 admin 님이 이 정책을 저장했습니다" in shown(offline, f"thermal-note-{kind}")

    offline.find(marker=f"thermal-save-{kind}").click()

    async def saved_as_typed() -> bool:
        return (await attached_services().thermal.policy(ADMIN, kind)).policy.trip_celsius == typed

    await until(saved_as_typed, within=WITHIN, what="the typed trip saved")
    await eventually(lambda: no_text(offline, f"thermal-note-{kind}"), within=WITHIN)


async def test_a_transition_shows_in_the_table_and_the_history(
    offline: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No cluster, so no controller: the status the page reads is the one this test sets.
    now: list[ThermalStatus] = [ThermalStatus(None, "test", True, None, ())]

    async def status(principal: Principal | None) -> ThermalStatus:
        return now[0]

    services = attached_services()
    monkeypatch.setattr(services.thermal, "status", status)
    kind, _ = await opened(offline, "en")
    assert shown(offline, "thermal-live") == "" and shown(offline, "thermal-history") == ""

    policy = ThermalPolicy()  # 85 / 75 °C, held 10 / 30 s
    hot = NodeStatus("node-hot", "hot", 95.0, time.time(), True, (), (), ())
    now[0] = ThermalStatus(time.time(), "test", True, None, (DeviceTypeStatus(kind, policy, (hot,)),))
    event = ThermalEvent(
        at=datetime.now(UTC),
        device_type_id=kind,
        node="node-hot",
        device=None,
        to_state="hot",
        temperature_celsius=95.0,
        details={"policy": policy.model_dump(), "override_of": None},
        message="node-hot at 95 °C reached 85 °C for 10 s",
    )
    await services.thermal.records.add([event])

    await eventually(sees(offline, "thermal-live", "node-hot", "Hot · traffic cut", "95.0 °C"), within=WITHIN)
    await eventually(
        sees(offline, "thermal-history", "node-hot", "node-hot: 95.0 °C — at or above 85 °C for 10 s, hot"),
        within=WITHIN,
    )
    # The type by its name, the state as red chips with their words, the times as instants for the
    # reader's clock with UTC beside them.
    name = await named(kind)
    (live,) = table_rows(offline, "thermal-live")
    assert live["device_type"] == name
    assert [(c["kind"], c["label"], c["color"]) for c in live["state_chips"]] == [
        ("hot", "Hot", "red-7"),
        ("cut", "traffic cut", "red-7"),
    ]
    assert datetime.fromisoformat(live["since"]).tzinfo is not None and live["since_utc"].endswith(" UTC")
    (history,) = table_rows(offline, "thermal-history")
    assert history["device_type"] == name and history["at_utc"].endswith(" UTC")
    assert abs(datetime.fromisoformat(history["at"]) - event.at) < timedelta(seconds=1)
    assert [c["kind"] for c in history["state_chips"]] == ["hot"]


async def test_the_reasons_show_in_the_pages_language(offline: User, monkeypatch: pytest.MonkeyPatch) -> None:
    """Why a pod is off or kept and why a node is stale: worded from their codes, in Korean here."""
    policy = ThermalPolicy()  # 85 / 75 °C
    hot = Message(
        "thermal.reason.hot",
        {"where": Message("thermal.where.node", {"node": "node-hot"}), "temperature": 95.0, "trip": 85.0}
        | {"resume": 75.0},
    )
    kept = Message("thermal.reason.kept_last_replica", {"deployment": "team/llm", "why": hot})
    pods = (
        PodTraffic("team", "llm-a", "llm", False, hot),
        PodTraffic("team", "llm-b", "llm", True, kept, kept=True),
    )
    node = NodeStatus("node-hot", "hot", 95.0, time.time(), True, (), ("team/llm",), pods)
    stale = NodeStatus(
        "node-stale", "stale", None, time.time(), True, (), (), (), Message("thermal.stale.no_reading")
    )

    async def status(principal: Principal | None) -> ThermalStatus:
        return ThermalStatus(
            time.time(), "test", True, None, (DeviceTypeStatus(kind, policy, (node, stale)),)
        )

    kind = (await attached_services().thermal.policies(ADMIN))[0].device_type
    monkeypatch.setattr(attached_services().thermal, "status", status)
    await opened(offline, "ko")

    await eventually(
        sees(
            offline,
            "thermal-live",
            "node-hot: 95.0 °C (차단 85 °C, 복귀 75 °C)",
            "team/llm의 마지막 라우팅 가능한 복제본이라 트래픽을 유지합니다",
            "쓸 수 있는 온도 값이 없습니다",
        ),
        within=WITHIN,
    )
    hot_row, stale_row = table_rows(offline, "thermal-live")
    # Cut red, kept amber, each pod's chip in Korean; the unreadable node amber.
    assert [(c["kind"], c["color"], c["label"]) for c in hot_row["pod_chips"]] == [
        ("cut", "red-7", "team/llm-a · 차단됨"),
        ("kept", "amber-9", "team/llm-b · 마지막 복제본이라 유지"),
    ]
    assert [(c["kind"], c["color"]) for c in stale_row["state_chips"]] == [
        ("stale", "amber-9"),
        ("cut", "red-7"),
    ]
    live = shown(offline, "thermal-live")
    assert "trip" not in live and "kept as" not in live and "no usable" not in live, live


async def test_a_policy_the_card_refuses_is_told_in_korean(offline: User) -> None:
    kind, policy = await opened(offline, "ko")
    offline.find(marker=f"thermal-trip-{kind}").clear().type("40")
    offline.find(marker=f"thermal-save-{kind}").click()

    told = f"resume_celsius ({policy.resume_celsius:g})는 trip_celsius (40)보다 낮아야 합니다"
    await eventually(sees(offline, f"thermal-error-{kind}", told), within=WITHIN)
    assert "must be below" not in shown(offline, f"thermal-error-{kind}")
    assert (await attached_services().thermal.policy(ADMIN, kind)).source == "default"


async def test_an_own_condition_that_does_not_parse_is_said_under_its_fields(offline: User) -> None:
    kind, _ = await opened(offline, "ko")
    with offline:
        (switch,) = offline.find(marker=f"thermal-custom-{kind}").elements
        (expression,) = offline.find(marker=f"thermal-custom-expression-{kind}").elements
        assert isinstance(switch, ui.switch) and isinstance(expression, ui.input)
        switch.value, expression.value = True, "sum("
    offline.find(marker=f"thermal-save-{kind}").click()
    await eventually(
        sees(offline, f"thermal-custom-error-{kind}", "PromQL 식 sum(을(를) 해석할 수 없습니다"),
        within=WITHIN,
    )
    said = shown(offline, f"thermal-custom-error-{kind}")
    assert "Message(" not in said and "{'" not in said and "custom" not in said, said
    no_text(offline, f"thermal-error-{kind}")
    assert (await attached_services().thermal.policy(ADMIN, kind)).source == "default"


async def test_unhealthy_on_a_type_without_health_is_warned_of_with_where_to_map_it(offline: User) -> None:
    types = await attached_services().catalog.list(ADMIN)
    blind = next(d for d in types if "health" not in d.metrics.queries())
    policy = (await attached_services().thermal.policy(ADMIN, blind.id)).policy
    on = policy.model_copy(update={"unhealthy": policy.unhealthy.model_copy(update={"enabled": True})})
    await attached_services().thermal.put_policy(ADMIN, blind.id, on)
    await opened(offline, "ko")
    marker = f"thermal-warnings-{blind.id}"
    await eventually(sees(offline, marker, f"{blind.name}에 상태 식이 매핑되어 있지 않아"), within=WITHIN)
    with offline:
        (column,) = offline.find(marker=marker).elements
        (link,) = [e for e in column.descendants() if isinstance(e, ui.link)]
    assert link.props["href"] == f"/admin/devices/{blind.id}/edit?step=2" and "2단계" in link.text
    await attached_services().thermal.put_policy(ADMIN, blind.id, policy)
    await eventually(lambda: no_text(offline, marker), within=WITHIN)


async def test_a_pod_the_breaker_held_is_chipped_as_held_not_as_a_last_replica(
    offline: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    hot = Message(
        "thermal.reason.hot",
        {"where": Message("thermal.where.node", {"node": "node-b"}), "temperature": 95.0, "trip": 85.0}
        | {"resume": 75.0},
    )
    held = Message("thermal.reason.breaker_nodes", {"why": hot, "allowed": 1, "total": 2})
    pod = PodTraffic("team", "llm-b", "llm", True, held, kept=True)
    node = NodeStatus("node-b", "hot", 95.0, time.time(), True, (), ("team/llm",), (pod,), held=True)
    kind = (await attached_services().thermal.policies(ADMIN))[0].device_type

    async def status(principal: Principal | None) -> ThermalStatus:
        return ThermalStatus(
            time.time(), "test", True, None, (DeviceTypeStatus(kind, ThermalPolicy(), (node,)),)
        )

    monkeypatch.setattr(attached_services().thermal, "status", status)
    await opened(offline, "ko")
    await eventually(sees(offline, "thermal-live", "95.0 °C (차단 85 °C"), within=WITHIN)
    (row,) = table_rows(offline, "thermal-live")
    assert [(c["kind"], c["label"]) for c in row["pod_chips"]] == [
        ("held", "team/llm-b · 서킷 브레이커가 유지")
    ]
    assert ("held", "서킷 브레이커가 차단 보류") in [(c["kind"], c["label"]) for c in row["state_chips"]]
    # Why, right under the pod's chip: the circuit breaker's sentence, with the Korean spacing.
    (said,) = [c["reason"] for c in row["pod_chips"]]
    assert "서킷 브레이커가 노드 2개 중 1개까지만" in said and "°C (차단" in said and "°C(" not in said, said
