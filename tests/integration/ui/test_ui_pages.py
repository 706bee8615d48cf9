"""The dashboard's pages as a person meets them, through NiceGUI's simulated user (no browser): who sees
the Admin menu, what a non-admin gets on an admin URL, the sign-in redirect, both languages."""

from __future__ import annotations

import importlib
import re
from collections.abc import AsyncIterator

import pytest
from nicegui import ui
from nicegui.testing import User

from support.polling import eventually, stays_true

from .people import PEOPLE, USER_HEADER
from .wizard_world import as_, dashboard


@pytest.fixture
async def person() -> AsyncIterator[User]:
    async with dashboard({}) as simulated:
        yield simulated


async def test_an_admin_sees_the_admin_menu_and_a_user_does_not(person: User) -> None:
    await as_(person, "admin").open("/")
    await person.should_see("admin")
    await person.should_see("디바이스")
    await person.should_see("감사 기록")

    await as_(person, "user").open("/")
    await person.should_see("user")
    await person.should_see("모니터링")
    await person.should_see(marker="nav-/alerts")  # Alerts is for everyone
    await person.should_not_see("디바이스")
    await person.should_not_see("감사 기록")


async def test_a_user_opening_an_admin_url_is_told_it_is_not_for_them(person: User) -> None:
    for path in ("/admin/devices", "/admin/audit"):
        await as_(person, "user", "en").open(path)
        await person.should_see("You do not have access")
        await person.should_see("nufi-admin")
        await person.should_not_see(kind=ui.table)


async def test_the_admin_device_list_shows_the_official_types(person: User) -> None:
    await as_(person, "admin", "en").open("/admin/devices")
    await person.should_see("Devices")
    (table,) = person.find(ui.table).elements
    rows = {row["id"]: row for row in table.rows}
    assert rows["nvidia-gpu"]["name"] == "NVIDIA GPU"
    assert rows["nvidia-gpu"]["resource_key"] == "nvidia.com/gpu"
    assert rows["nvidia-gpu"]["kind"] == "Official"
    # No cluster is configured here: the counts say why they are missing instead of showing 0.
    assert rows["nvidia-gpu"]["capacity"].startswith("The cluster could not be read")
    assert [column["label"] for column in table.columns][:3] == ["Name", "Vendor", "Resource key"]


async def test_someone_not_signed_in_is_sent_to_sign_in_and_back_to_the_same_url(person: User) -> None:
    person.http_client.headers.pop(USER_HEADER, None)
    response = await person.http_client.get("/admin/devices?x=1", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/auth/login?next=%2Fadmin%2Fdevices%3Fx%3D1"


async def test_the_language_follows_the_browser_then_the_choice(person: User) -> None:
    await as_(person, "user", "en-US,en;q=0.9,ko;q=0.5").open("/")
    await person.should_see("Monitoring")
    await person.should_see("Sign out")
    chosen = await person.http_client.get("/ui/language?set=ko&next=/", follow_redirects=False)
    assert chosen.status_code == 303 and chosen.headers["location"] == "/"
    cookie = chosen.headers["set-cookie"]
    assert "nufi_language=ko" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    person.http_client.cookies.set("nufi_language", "ko")
    await person.open("/")
    await person.should_see("모니터링")
    await person.should_see("로그아웃")


async def test_without_prometheus_the_monitoring_page_says_so(person: User) -> None:
    await as_(person, "user", "en").open("/")
    await person.should_see("Prometheus cannot be reached")


async def test_without_prometheus_the_korean_monitoring_page_says_why_in_korean(person: User) -> None:
    await as_(person, "user", "ko").open("/")
    await person.should_see("Prometheus에 연결할 수 없습니다")
    (said,) = [
        label.text
        for label in person.find(ui.label).elements
        if isinstance(label, ui.label) and label.text.startswith("Prometheus에 연결할 수 없습니다")
    ]
    why = said.removeprefix("Prometheus에 연결할 수 없습니다: ")
    # The service's reason, worded from its code in Korean: no English sentence of its own.
    assert re.search("[가-힣]", why) and not re.search(r"\b(is|the|not|cannot)\b", why), said


async def test_an_open_page_whose_session_ends_sends_the_person_to_sign_in_and_back(
    person: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_pages = importlib.import_module("nufi.ui.open_pages")
    for name in ("SESSION_CHECK_SECONDS", "UNCONNECTED_SECONDS", "CLOSE_GRACE_SECONDS"):
        monkeypatch.setattr(open_pages, name, 0.05)
    await as_(person, "user", "en").open("/?type=lpu")
    client = person.client
    assert client is not None
    went: list[object] = []
    monkeypatch.setattr(person.navigate, "to", lambda target, new_tab=False: went.append(target))
    await stays_true(lambda: went == [], for_seconds=0.3)  # signed in: the checks change nothing
    user = PEOPLE.pop("user")  # the session ends (at the issuer, or its refresh is refused)
    try:

        def sent_to_sign_in() -> None:
            assert went[:1] == ["/auth/login?next=%2F%3Ftype%3Dlpu"]
            assert client.is_deleted  # closed on the server, not only redirected

        await eventually(sent_to_sign_in, within=10)
    finally:
        PEOPLE["user"] = user


async def test_every_page_needs_sign_in_and_every_admin_page_the_admin_role(person: User) -> None:
    from nicegui import Client

    paths = sorted(set(Client.page_routes.values()))
    assert {"/", "/alerts", "/admin/devices", "/admin/audit", "/admin/devices/new"} <= set(paths), paths
    person.http_client.headers.pop(USER_HEADER, None)
    for path in paths:
        anonymous = await person.http_client.get(path, follow_redirects=False)
        assert anonymous.status_code == 303, path
        assert anonymous.headers["location"].startswith("/auth/login?next="), path
    for path in (p for p in paths if p.startswith("/admin/")):
        await as_(person, "user", "en").open(path)
        await person.should_see("You do not have access")
    # A page for everyone opens for a user without the admin role.
    await as_(person, "user", "en").open("/alerts")
    await person.should_see("Alerts cannot be read")
    await person.should_not_see("You do not have access")


@pytest.mark.parametrize(
    ("language", "may_disable", "max_trip"),
    [
        ("en", "Let deployment overrides switch protection off", "Highest trip an override may set"),
        ("ko", "배포별 설정으로 보호 끄기 허용", "배포별 설정의 최고 차단 온도"),
    ],
)
async def test_the_thermal_policy_form_shows_the_override_bounds(
    person: User, language: str, may_disable: str, max_trip: str
) -> None:
    await as_(person, "admin", language).open("/admin/thermal")
    await person.should_see(may_disable)
    await person.should_see(max_trip)
