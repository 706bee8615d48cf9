"""The workload pages follow the cluster while they are open, through NiceGUI's simulated user over a
dev cluster with LPU nodes (lpu-node-1 has 6, lpu-node-2 has 4): a deployment going Pending → Ready
when capacity frees up, scaled or deleted from the API, and a lab stopped from the API, all shown in
place without reopening the page, leaving what the person typed and an open dialog as they were; and
the Accelerator drop-down's per-node counts with the warning under the count field, amber for a count
no node has free now and red for one no node can ever give, in Korean and English.
"""

from __future__ import annotations

from nicegui.testing import User

from nufi.workloads.deployments.spec import DeploymentCreate
from nufi.workloads.labs.model import LabRequest
from support.languages import english_sentences
from support.polling import eventually, holds

from .people import PEOPLE
from .wizard_world import input_of
from .workload_pages_world import (
    fit_warning,
    new_project,
    open_page,
    options,
    row_becomes,
    row_gone,
    send,
    services,
    set_value,
)

USER = PEOPLE["user"]


async def deploy(project: str, name: str, count: int) -> None:
    request = DeploymentCreate.model_validate(
        {"name": name, "image": "nufi-mock:inference", "accelerator": {"device_type": "lpu", "count": count}}
    )
    await services().deployments.create(USER, project, request)


async def test_status_changes_appear_in_place_and_leave_the_form_and_the_dialog_be(person: User) -> None:
    project = await new_project("user")
    await deploy(project, "fill", 5)  # only lpu-node-1 has 5: it holds them
    await open_page(person, "user", "en", f"/deployments?project={project}")
    await row_becomes(person, "fill", status="Ready", status_color="positive")
    await deploy(project, "big", 5)
    await row_becomes(person, "big", status="Pending", status_text="Pending", status_color="warning")
    person.find(marker="dep-name").type("draft")
    send(person, "scale", "fill")
    await person.should_see(marker="scale-dialog")

    # Capacity frees up: the waiting deployment is placed, and the page says so by itself.
    await services().deployments.delete(USER, project, "fill")
    await row_gone(person, "fill")
    row = await row_becomes(person, "big", status="Ready", ready="1 / 1", status_color="positive")
    assert row["status_icon"] == "check_circle" and row["nodes"] == "lpu-node-1"
    # The page changed under the person, not what they were doing.
    assert input_of(person, "dep-name").value == "draft"
    await person.should_see(marker="scale-dialog")

    # Scaled from the API: the row follows.
    await services().deployments.scale(USER, project, "big", 0)
    await row_becomes(person, "big", status="ScaledDown", ready="0 / 0", status_color="grey")


async def test_a_lab_stopped_from_the_api_shows_stopped_in_place(person: User) -> None:
    project = await new_project("user")
    request = {"name": "notes", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
    await services().labs.create(USER, project, LabRequest.model_validate(request))
    await open_page(person, "user", "ko", f"/labs?project={project}", ready="lab-create")
    await row_becomes(person, "notes", status="Ready", status_text="준비됨", status_color="positive")
    await services().labs.stop(USER, project, "notes")
    row = await row_becomes(person, "notes", status="Stopped", status_text="중지됨", status_color="grey")
    assert row["accelerator"] == "HyperAccel LPU \N{MULTIPLICATION SIGN} 1" and row["stopped"] is True


async def test_the_drop_down_counts_per_node_and_the_count_is_warned_in_korean(person: User) -> None:
    project = await new_project("user")
    await deploy(project, "fill", 5)  # lpu-node-1 keeps 1 free, lpu-node-2 has 4
    await open_page(person, "user", "ko", f"/deployments?project={project}")
    await row_becomes(person, "fill", status="Ready")
    await eventually(
        lambda: holds(
            options(person, "dep-accelerator")["lpu"]
            == "HyperAccel LPU — 5개 사용 가능 (지금 한 노드에 최대 4개)"
        ),
        within=15,
    )
    set_value(person, "dep-accelerator", "lpu")
    set_value(person, "dep-count", 4)
    assert fit_warning(person, "dep-accelerator") is None
    set_value(person, "dep-count", 5)
    level, text = fit_warning(person, "dep-accelerator") or ("", "")
    assert level == "now", text
    assert text.startswith("지금은 HyperAccel LPU 5개가 남은 노드가 없습니다(한 노드에 남은 최대 개수 4개)")
    assert english_sentences(text) == []
    set_value(person, "dep-count", 7)
    level, text = fit_warning(person, "dep-accelerator") or ("", "")
    assert level == "never", text
    assert text == (
        "HyperAccel LPU 7개를 가진 노드가 없습니다(한 노드에 최대 6개). 이 개수로는 만들 수 없습니다."
    )
    # Capacity frees up while the count stays: the amber warning goes by itself.
    set_value(person, "dep-count", 5)
    assert fit_warning(person, "dep-accelerator") is not None
    await services().deployments.delete(USER, project, "fill")
    await eventually(lambda: holds(fit_warning(person, "dep-accelerator") is None), within=20)


async def test_the_lab_form_warns_of_a_count_in_english(person: User) -> None:
    project = await new_project("user")
    await deploy(project, "fill", 5)
    await open_page(person, "user", "en", f"/labs?project={project}", ready="lab-create")
    await eventually(
        lambda: holds(
            options(person, "lab-accelerator")["lpu"] == "HyperAccel LPU — 5 free (at most 4 on one node now)"
        ),
        within=15,
    )
    set_value(person, "lab-accelerator", "lpu")
    set_value(person, "lab-count", 5)
    assert fit_warning(person, "lab-accelerator") == (
        "now",
        "No node has 5 HyperAccel LPU devices free right now (at most 4 on one node): "
        "the pod will wait, Pending, until enough free up.",
    )
    set_value(person, "lab-count", 9)
    assert fit_warning(person, "lab-accelerator") == (
        "never",
        "No node has 9 HyperAccel LPU devices at all (at most 6 on one node): "
        "the service refuses this count.",
    )
    set_value(person, "lab-count", 1)
    assert fit_warning(person, "lab-accelerator") is None
