"""The one workload page serves any kind: a third kind the product does not have (`sample_page.Samples`,
described in a few lines, kept in memory) gets the project selector, the table with its own columns and
the shared status, reason and age cells, refreshed in place, its own row button, the delete with its
confirmation, and the create form with the name and the accelerator fields beside its own.

The row buttons live in the table's Quasar slot, which the simulated user cannot click: the test sends
the events those buttons emit, with the row's name.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from nicegui import ui
from nicegui.testing import User

from support.polling import eventually, holds

from .wizard_world import shown
from .workload_pages_world import new_project, open_page, row_becomes, row_gone, send, set_value


def samples() -> ModuleType:
    """The sample kind's module, as the simulated dashboard imported it (its samples are its state)."""
    return importlib.import_module("integration.ui.sample_page")


async def test_a_third_kind_is_listed_acted_on_and_created_by_the_one_workload_page(person: User) -> None:
    kinds = samples()
    project = await new_project("user")
    kinds.SAMPLES[project] = [kinds.Sample("first", "Ready", "red", "2026-01-01T00:00:00Z")]
    await open_page(person, "user", "en", f"{kinds.SAMPLES_PATH}?project={project}", ready="smp-create")
    row = await row_becomes(person, "first", status_text="Ready", status_color="positive", colour="red")
    assert row["created_utc"] == "2026-01-01 00:00:00 UTC"
    with person:
        (table,) = person.find(kind=ui.table).elements
    assert isinstance(table, ui.table)
    assert [column["name"] for column in table.columns] == ["name", "colour", "status", "age", "actions"]
    assert table.props["data-testid"] == "samples-table"
    # A sample added behind the page's back appears on the page's own timer.
    kinds.SAMPLES[project].append(kinds.Sample("second", "Pending", "blue", "2026-01-01T00:00:00Z"))
    await row_becomes(person, "second", status_icon="hourglass_empty")

    send(person, "ping", "first")
    await eventually(lambda: holds(("ping", project, "first") in kinds.ASKED, kinds.ASKED))

    send(person, "delete", "second")
    await person.should_see("Delete the lab second?")
    await person.should_see(f"from {project}")
    person.find(marker="delete-confirm").click()
    await row_gone(person, "second")
    assert [sample.name for sample in kinds.SAMPLES[project]] == ["first"]

    person.find(marker="smp-name").type("third")
    person.find(marker="smp-create").click()
    await eventually(lambda: holds(shown(person, "smp-error-colour") == "a sample needs a colour"))
    set_value(person, "smp-colour", "green")
    set_value(person, "smp-accelerator", "lpu")
    set_value(person, "smp-count", 2)
    person.find(marker="smp-create").click()
    await row_becomes(person, "third", colour="green", status_text="Starting")
    body = {"name": "third", "accelerator": {"device_type": "lpu", "count": 2}, "colour": "green"}
    assert ("create", project, body) in kinds.ASKED
