"""The Add Device wizard's draft, kept in the database, through NiceGUI's simulated user: a draft per
tab, resumed after a restart, never another person's, an unknown one replaced, and Start over."""

from __future__ import annotations

from pathlib import Path

from nicegui.testing import User

from nufi.auth import Principal
from support.polling import eventually, until

from .people import PEOPLE
from .wizard_steps import WIZARD, at_step, draft_id, drafts, fill_identity, no_save_pending, open_wizard, sees
from .wizard_world import WIZARD_KEY, as_, dashboard, dashboard_env, input_of

# -- the draft is kept in the database ------------------------------------------------------------------


async def test_opening_the_wizard_gives_each_tab_a_draft_of_its_own(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    first = draft_id(offline)
    assert first  # redirected to the URL with its draft
    offline.find(marker="name").type("First tab")
    await open_wizard(offline, "en", 1)
    assert draft_id(offline) == first
    assert input_of(offline, "name").value == "First tab"

    await offline.open(f"{WIZARD}?step=1")  # another tab opens Add Device
    await at_step(offline, 1)
    second = draft_id(offline)
    assert second and second != first
    assert input_of(offline, "name").value == ""
    offline.find(marker="name").type("Second tab")
    await eventually(no_save_pending, within=5)
    assert (await drafts().get(PEOPLE["admin"], first) or {}).get("name") == "First tab"
    assert (await drafts().get(PEOPLE["admin"], second) or {}).get("name") == "Second tab"


async def test_a_restart_resumes_at_step_two_with_what_was_typed(tmp_path: Path) -> None:
    env = dashboard_env(tmp_path)  # both processes over this one database file
    async with dashboard(env) as before:
        await open_wizard(before, "en", 1)
        await fill_identity(before)
        before.find(marker="wizard-forward").click()
        await at_step(before, 2)
        before.find(marker="labels.node").type("Hostname")
        url = f"{WIZARD}?step=2&draft={draft_id(before)}"
        await eventually(no_save_pending, within=5)

    async with dashboard(env) as after:  # a new NuFi process over the same database
        await as_(after, "admin", "en").open(url)
        await at_step(after, 2)
        await after.should_not_see(marker="draft-missing")
        assert input_of(after, "labels.node").value == "Hostname"
        after.find(marker="wizard-back").click()
        await at_step(after, 1)
        assert input_of(after, "name").value == "Wizard NPU"
        assert input_of(after, "id").value == "wizard-npu"
        assert input_of(after, "resource_key").value == WIZARD_KEY


async def test_another_persons_draft_is_not_shown_and_a_fresh_one_starts(offline: User) -> None:
    other = Principal(subject="s-other-admin", username="other", roles=frozenset({"nufi-admin"}))
    theirs = await drafts().create(other, {"name": "Their secret NPU", "labels.node": "their-node"})

    await as_(offline, "admin", "en").open(f"{WIZARD}?step=2&draft={theirs}")
    await at_step(offline, 1)  # a fresh draft starts at the beginning
    await eventually(sees(offline, "draft-missing", "This draft was not found"), within=5)
    assert input_of(offline, "name").value == ""
    offline.find(marker="name").type("Mine")
    await eventually(no_save_pending, within=5)
    # Theirs is untouched, and not the admin's to read.
    assert await drafts().get(PEOPLE["admin"], theirs) is None
    assert await drafts().get(other, theirs) == {"name": "Their secret NPU", "labels.node": "their-node"}


async def test_an_unknown_draft_id_starts_a_fresh_draft_and_says_so(offline: User) -> None:
    await as_(offline, "admin", "ko").open(f"{WIZARD}?step=3&draft=no-such-draft")
    await at_step(offline, 1)
    await eventually(sees(offline, "draft-missing", "새 초안"), within=5)
    await offline.should_see(marker="name")


async def test_start_over_deletes_the_draft_and_opens_an_empty_one(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    offline.find(marker="name").type("Soon gone")
    draft = draft_id(offline)
    await eventually(no_save_pending, within=5)
    assert (await drafts().get(PEOPLE["admin"], draft) or {}).get("name") == "Soon gone"

    offline.find(marker="wizard-restart").click()

    async def started_over() -> bool:
        assert await drafts().get(PEOPLE["admin"], draft) is None
        assert draft_id(offline) not in ("", draft)
        assert input_of(offline, "name").value == ""
        return True

    await until(started_over, within=10)
    await offline.should_not_see(marker="draft-missing")
