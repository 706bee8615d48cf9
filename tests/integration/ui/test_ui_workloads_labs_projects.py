"""Workloads → Labs and Admin → Projects through NiceGUI's simulated user, over a dev cluster with LPU
nodes: a lab created from the form (Jupyter or VS Code, an accelerator, its home volume), stopped,
started and deleted from its row, its Open link; a non-admin refused Admin → Projects; an admin
creating a project, adding and removing a member, and deleting it after the dry run has listed what
goes with it; an admin setting a project's quotas, and its members reading them beside the free devices.

The lab rows' buttons live in the table's Quasar slot: the tests send the events they emit.
"""

from __future__ import annotations

import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.errors import NotFound
from nufi.workloads.labs.model import LabRequest
from support.languages import english_sentences
from support.polling import eventually, holds

from .people import PEOPLE
from .wizard_world import as_, shown
from .workload_pages_world import (
    ADMIN,
    LPU,
    fit_warning,
    new_project,
    open_page,
    row_becomes,
    row_gone,
    send,
    services,
    set_value,
)

USER = PEOPLE["user"]


# -- labs ------------------------------------------------------------------------------------------


async def test_a_lab_is_created_stopped_started_and_deleted_from_the_page(person: User) -> None:
    project = await new_project("user")
    await open_page(person, "user", "en", f"/labs?project={project}", ready="lab-create")
    person.find(marker="lab-name").type("notes")
    set_value(person, "lab-kind", "vscode")
    set_value(person, "lab-accelerator", "lpu")  # not the GPU the world's GPU node offers
    set_value(person, "lab-count", 2)
    set_value(person, "lab-storage", 3)
    person.find(marker="lab-create").click()
    row = await row_becomes(person, "notes", status="Ready", openable=True)
    assert row["kind"] == "VS Code" and row["storage"] == "3 GiB"
    assert row["accelerator"] == "HyperAccel LPU \N{MULTIPLICATION SIGN} 2"
    lab = await services().labs.get(USER, project, "notes")
    assert (lab.kind, lab.accelerator.resource_key, lab.accelerator.count, lab.storage_gib) == (
        "vscode",
        LPU,
        2,
        3,
    )
    # Open is a link to the lab's path on NuFi, whose proxy lets the project's members through.
    assert row["url"] == lab.url == f"/labs/{project}/notes/"

    send(person, "stop", "notes")
    await row_becomes(person, "notes", status="Stopped", stopped=True, openable=False, status_text="Stopped")
    assert (await services().labs.get(USER, project, "notes")).status == "Stopped"
    send(person, "start", "notes")
    await row_becomes(person, "notes", status="Ready", stopped=False)

    send(person, "delete", "notes")
    await person.should_see("Delete the lab notes?")
    person.find(marker="delete-confirm").click()
    await row_gone(person, "notes")
    with pytest.raises(NotFound):
        await services().labs.get(USER, project, "notes")


async def test_a_waiting_lab_shows_why_and_a_bad_name_is_named_beside_it(person: User) -> None:
    project = await new_project("user")
    take_all = {"device_type": "lpu", "count": 6}
    await services().labs.create(
        USER,
        project,
        LabRequest.model_validate({"name": "first", "kind": "jupyter", "accelerator": take_all}),
    )
    await services().labs.create(
        USER,
        project,
        LabRequest.model_validate({"name": "second", "kind": "jupyter", "accelerator": take_all}),
    )
    await open_page(person, "user", "ko", f"/labs?project={project}", ready="lab-create")
    await row_becomes(person, "first", status="Ready", status_text="준비됨")
    row = await row_becomes(person, "second", status="Pending", status_text="대기 중")
    # The Korean page words the reason from its code: no English sentence from the service.
    assert row["reason"] == "HyperAccel LPU 6개가 남은 노드가 없습니다: lpu-node-1에 0개, lpu-node-2에 4개"

    person.find(marker="lab-name").type("9lab")
    person.find(marker="lab-create").click()
    await eventually(lambda: holds("영문자로 시작해야 합니다" in shown(person, "lab-error-name")))
    assert english_sentences(shown(person, "lab-error-name")) == []
    assert "입력값을 확인하세요." in shown(person, "lab-error")


# -- Admin → Projects ------------------------------------------------------------------------------


async def test_a_user_is_refused_admin_projects(person: User) -> None:
    await new_project("user")
    await as_(person, "user", "en").open("/admin/projects")
    await person.should_see("You do not have access")
    await person.should_not_see(marker="project-form")
    await person.should_not_see("Projects")  # not in their sidebar either


async def test_an_admin_creates_a_project_manages_members_and_deletes_it_after_the_dry_run(
    person: User,
) -> None:
    await open_page(person, "admin", "en", "/admin/projects", ready="project-create")
    await person.should_see(marker="projects-empty")
    person.find(marker="project-name").type("Not_A_Name")
    person.find(marker="project-create").click()
    await eventually(lambda: holds("DNS-1123" in shown(person, "project-error-name")))

    with person:
        (name,) = person.find(marker="project-name").elements
        assert isinstance(name, ui.input)
        name.value = "team-llm"
    person.find(marker="project-members").type("alice, bob")
    person.find(marker="project-create").click()
    await person.should_see(marker="project-team-llm", retries=100)
    assert (await services().projects.require_access(ADMIN, "team-llm")).members == ("alice", "bob")

    person.find(marker="add-member-team-llm").type("user")
    person.find(marker="add-member-button-team-llm").click()
    await eventually(lambda: holds("user" in shown(person, "members-team-llm")), within=10)
    assert (await services().projects.require_access(ADMIN, "team-llm")).members == ("alice", "bob", "user")
    person.find(marker="remove-team-llm-bob").click()
    await eventually(lambda: holds("bob" not in shown(person, "members-team-llm")), within=10)
    assert (await services().projects.require_access(ADMIN, "team-llm")).members == ("alice", "user")

    # A bad username is named beside the member field of that project.
    person.find(marker="add-member-team-llm").type("Bad User!")
    person.find(marker="add-member-button-team-llm").click()
    await eventually(lambda: holds(shown(person, "member-team-llm-error-username") != ""))

    await services().labs.create(
        USER,
        "team-llm",
        LabRequest.model_validate(
            {"name": "scratch", "kind": "jupyter", "accelerator": {"device_type": "lpu", "count": 1}}
        ),
    )
    person.find(marker="delete-team-llm").click()
    await person.should_see("Delete the project team-llm?")
    dry_run = shown(person, "dry-run")
    for expected in ("StatefulSet/scratch", "Service/scratch", "PersistentVolumeClaim/scratch-home"):
        assert expected in dry_run, dry_run
    # The dry run deleted nothing.
    assert (await services().labs.get(USER, "team-llm", "scratch")).name == "scratch"
    person.find(marker="project-delete-confirm").click()
    await person.should_see(marker="projects-empty", retries=100)
    with pytest.raises(NotFound):
        await services().projects.require_access(ADMIN, "team-llm")


async def test_admin_projects_in_korean(person: User) -> None:
    project = await new_project("user")
    await open_page(person, "admin", "ko", "/admin/projects", ready="project-create")
    await person.should_see("새 프로젝트")
    await person.should_see("멤버 추가")
    await person.should_see("user")

    # Refusals are worded from their codes: a bad project name and a bad username, in Korean.
    person.find(marker="project-name").type("Not_A_Name")
    person.find(marker="project-create").click()
    await eventually(lambda: holds("DNS-1123 레이블이 아닙니다" in shown(person, "project-error-name")))
    assert english_sentences(shown(person, "project-error-name")) == []
    person.find(marker=f"add-member-{project}").type("Bad User!")
    person.find(marker=f"add-member-button-{project}").click()
    error = f"member-{project}-error-username"
    await eventually(lambda: holds("사용자 이름에 쓸 수 없는 문자가 있습니다" in shown(person, error)))
    assert english_sentences(shown(person, error)) == []


async def test_an_admin_sets_a_projects_quotas_and_its_members_see_them_beside_the_free_devices(
    person: User,
) -> None:
    project = await new_project("user")
    await open_page(person, "admin", "en", "/admin/projects", ready=f"quota-{project}-save")
    await person.should_see(marker=f"quota-{project}-none")
    assert "no limit" in shown(person, f"quota-{project}-usage-devices-lpu")

    # What the form's checks refuse is named beside its field, and nothing is written.
    set_value(person, f"quota-{project}-devices-lpu", 2)
    set_value(person, f"quota-{project}-storage", "lots")
    set_value(person, f"quota-{project}-pods", 10)
    person.find(marker=f"quota-{project}-save").click()
    await eventually(lambda: holds("lots" in shown(person, f"quota-{project}-error-storage")))
    assert "Check the fields below." in shown(person, f"quota-{project}-error")
    assert (await services().quotas.read(ADMIN, project)).devices == ()

    set_value(person, f"quota-{project}-storage", "10Gi")
    person.find(marker=f"quota-{project}-save").click()
    await eventually(lambda: holds("0 of 2" in shown(person, f"quota-{project}-usage-devices-lpu")))
    assert "0 of 10" in shown(person, f"quota-{project}-usage-pods")
    saved = await services().quotas.read(ADMIN, project)
    assert [(d.device_type, d.hard) for d in saved.devices] == [("lpu", 2)]
    assert (saved.storage and saved.storage.hard, saved.pods and saved.pods.hard) == ("10Gi", "10")

    # A member asking for devices sees the quota, and a count past its room is red before sending.
    await open_page(person, "user", "en", f"/labs?project={project}", ready="lab-create")
    set_value(person, "lab-accelerator", "lpu")
    told = "Project quota: 0 of 2 HyperAccel LPU in use by this project"
    await eventually(lambda: holds(shown(person, "lab-accelerator-quota") == told, shown(person, "lab-form")))
    set_value(person, "lab-count", 3)
    warning = fit_warning(person, "lab-accelerator")
    assert warning is not None and warning[0] == "quota" and "room for 2 more" in warning[1]
