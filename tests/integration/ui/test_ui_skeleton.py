"""The page skeleton: a page declared only here (`sample_page`, one module and one entry) gets sign-in,
the frame, its sidebar entry and the admin gate without a line of its own for any of them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.ui.i18n import text

from .people import USER_HEADER
from .sample_page import SAMPLE_PATH
from .wizard_world import as_, dashboard, shown

NAV = f"nav-{SAMPLE_PATH}"


@pytest.fixture
async def person() -> AsyncIterator[User]:
    async with dashboard({}) as simulated:
        yield simulated


def nav_link(user: User) -> ui.link:
    with user:
        (link,) = user.find(marker=NAV).elements
    assert isinstance(link, ui.link), link
    return link


async def test_someone_not_signed_in_is_sent_to_sign_in_and_back(person: User) -> None:
    person.http_client.headers.pop(USER_HEADER, None)
    response = await person.http_client.get(f"{SAMPLE_PATH}?say=hi", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/auth/login?next=%2Fadmin%2Fsample%3Fsay%3Dhi"


async def test_an_admin_gets_the_frame_the_entry_and_the_content(person: User) -> None:
    await as_(person, "admin", "en").open(f"{SAMPLE_PATH}?say=hi")
    await person.should_see("Sign out")  # the header
    await person.should_see("Devices")  # the rest of the sidebar
    await person.should_see(marker="sample-content")
    assert shown(person, "sample-content") == "admin hi"
    link = nav_link(person)
    assert link.props["href"] == SAMPLE_PATH
    with person:
        (row,) = [child for child in link.descendants() if isinstance(child, ui.row)]
        labels = [child.text for child in link.descendants() if isinstance(child, ui.label)]
    assert labels == [text("en", "charts.title")]
    assert "bg-slate-300" in row.classes  # the open page's entry is marked


async def test_the_entry_is_in_the_admin_section_of_every_page_in_the_persons_language(person: User) -> None:
    await as_(person, "admin", "ko").open("/")
    await person.should_see("모니터링")
    link = nav_link(person)
    with person:
        labels = [child.text for child in link.descendants() if isinstance(child, ui.label)]
        (row,) = [child for child in link.descendants() if isinstance(child, ui.row)]
    assert labels == [text("ko", "charts.title")]
    assert "bg-slate-300" not in row.classes


async def test_a_user_gets_the_frame_and_the_page_saying_it_is_not_for_them(person: User) -> None:
    await as_(person, "user", "en").open(SAMPLE_PATH)
    await person.should_see("Sign out")
    await person.should_see("You do not have access")
    await person.should_not_see(marker="sample-content")
    await person.should_not_see(marker=NAV)  # an admin-only page is not offered to them

    await person.open("/")
    await person.should_see("Monitoring")
    await person.should_not_see(marker=NAV)
