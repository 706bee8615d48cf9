"""Workloads → Deployments as a project's member meets it through NiceGUI's simulated user, over a dev
cluster with LPU nodes: the list with status, ready / desired and the Pending reason in the
accelerator's words; the create form (the Accelerator drop-down, errors beside the field they name);
scale and delete from the row; the empty state of someone in no project; both languages.

The row buttons live in the table's Quasar slot, which the simulated user cannot click: the tests send
the events those buttons emit (`scale`, `delete`, with the row's name).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from nicegui import ui
from nicegui.testing import User

from nufi.errors import NotFound
from nufi.workloads.deployments.spec import DeploymentCreate
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.languages import english_sentences
from support.polling import eventually, holds

from .people import PEOPLE
from .wizard_world import as_, input_of, shown
from .workload_pages_world import (
    LPU,
    fit_warning,
    new_project,
    open_page,
    options,
    row_becomes,
    row_gone,
    send,
    services,
    set_value,
    table_rows,
    workload_dashboard,
)

USER = PEOPLE["user"]
# The world's GPU node: the preset type, its eight GPUs untouched by these tests.
GPU_OPTION = "NVIDIA GPU — 8 free (at most 8 on one node now)"
TIMES = "\N{MULTIPLICATION SIGN}"


async def deploy(project: str, name: str, count: int, replicas: int = 1) -> None:
    """A deployment made through the service, as the project's member."""
    request = DeploymentCreate.model_validate(
        {
            "name": name,
            "image": "nufi-mock:inference",
            "accelerator": {"device_type": "lpu", "count": count},
            "replicas": replicas,
        }
    )
    await services().deployments.create(USER, project, request)


async def test_a_member_sees_the_projects_deployments_and_why_one_waits(person: User) -> None:
    project = await new_project("user")
    other = await new_project("someone-else")
    # Five LPUs fit only lpu-node-1 (6); once one pod holds them, a second such pod waits.
    await deploy(project, "fill", 5)
    await open_page(person, "user", "en", f"/deployments?project={project}")
    await row_becomes(person, "fill", status="Ready", ready="1 / 1", nodes="lpu-node-1")
    await deploy(project, "big", 5)
    # The page refreshes in place: the new deployment appears without a reload.
    row = await row_becomes(person, "big", status="Pending", status_text="Pending")
    assert row["reason"] == "no node has 5 free HyperAccel LPU: lpu-node-1 has 1; lpu-node-2 has 4"
    assert (
        row["accelerator"] == f"HyperAccel LPU {TIMES} 5" and row["ready"] == "0 / 1" and row["nodes"] == "—"
    )
    # The chip: amber, with the word and an icon, so the state does not rest on colour alone.
    assert (row["status_color"], row["status_icon"]) == ("warning", "hourglass_empty")
    assert row["created"] and row["created_utc"].endswith(" UTC")
    # In Korean the same reason is worded from its code, the figures in Korean too.
    await open_page(person, "user", "ko", f"/deployments?project={project}")
    row = await row_becomes(person, "big", status="Pending", status_text="대기 중")
    assert row["reason"] == "HyperAccel LPU 5개가 남은 노드가 없습니다: lpu-node-1에 1개, lpu-node-2에 4개"
    assert english_sentences(row["reason"]) == []
    # Only the chosen project's deployments; the other project is not even offered.
    assert set(table_rows(person)) == {"fill", "big"}
    with person:
        (select,) = person.find(marker="project-select").elements
    assert isinstance(select, ui.select) and list(select.options) == [project]
    # A project that is not theirs in the URL: their own is shown instead, and they are told so.
    await open_page(person, "user", "en", f"/deployments?project={other}")
    assert "fill" in table_rows(person)
    assert shown(person, "project-not-offered") == (
        f"There is no project {other}, or you are not a member of it; showing {project} instead."
    )


async def test_a_pod_the_scheduler_turns_away_for_another_reason_is_told_in_korean(person: User) -> None:
    # One LPU is free on both nodes, but no node has 500 CPUs: the scheduler's words decide.
    project = await new_project("user")
    request = DeploymentCreate.model_validate(
        {
            "name": "greedy",
            "image": "nufi-mock:inference",
            "accelerator": {"device_type": "lpu", "count": 1},
            "resources": {"cpu": "500"},
        }
    )
    await services().deployments.create(USER, project, request)
    await open_page(person, "user", "ko", f"/deployments?project={project}")
    row = await row_becomes(person, "greedy", status="Pending", status_text="대기 중")
    reason, source = row["reason"], row["reason_source"]
    assert reason.startswith("노드 2개(lpu-node-1, lpu-node-2)에 HyperAccel LPU 1개가 남아 있지만"), reason
    assert "스케줄러: 노드 " in reason and "CPU 부족(노드 " in reason, reason
    assert english_sentences(reason) == []
    # Kubernetes' own words are kept for the tooltip, not shown in the sentence.
    assert "nodes are available" in source and "Insufficient cpu" in source, source


async def test_a_deployment_created_from_the_form_lands_with_the_chosen_accelerator(person: User) -> None:
    project = await new_project("user")
    await open_page(person, "user", "en", f"/deployments?project={project}")
    with person:
        (select,) = person.find(marker="dep-accelerator").elements
    assert isinstance(select, ui.select)
    assert select.options == {
        "lpu": "HyperAccel LPU — 10 free (at most 6 on one node now)",
        "nvidia-gpu": GPU_OPTION,
    }
    set_value(person, "dep-accelerator", "lpu")  # not the GPU the world's GPU node offers
    person.find(marker="dep-name").type("chat")
    person.find(marker="dep-image").type("nufi-mock:inference")
    set_value(person, "dep-count", 2)
    set_value(person, "dep-replicas", 2)
    person.find(marker="dep-env").type("MODEL_NAME=tiny\nLOG_LEVEL=debug")
    person.find(marker="dep-create").click()
    row = await row_becomes(person, "chat", status="Ready", ready="2 / 2")
    assert row["accelerator"] == f"HyperAccel LPU {TIMES} 2"

    view = await services().deployments.get(USER, project, "chat")
    assert (view.device_type, view.resource_key, view.count, view.replicas) == ("lpu", LPU, 2, 2)
    assert view.image == "nufi-mock:inference"
    assert all(pod.accelerators == {LPU: 2} for pod in view.pods)
    assert input_of(person, "dep-name").value == ""  # ready for the next one
    # The drop-down follows the cluster: the four LPUs the two pods hold are no longer free.
    await eventually(
        lambda: holds(
            options(person, "dep-accelerator")["lpu"].startswith("HyperAccel LPU — 6 free (at most ")
        ),
        within=15,
    )


async def _deployment_object(cluster: DevClusterProcess, project: str, name: str) -> dict[str, Any]:
    """The Deployment as the Kubernetes API holds it."""
    async with httpx.AsyncClient(headers=cluster.headers, timeout=10) as kube:
        response = await kube.get(f"{cluster.url}/apis/apps/v1/namespaces/{project}/deployments/{name}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_the_form_starts_with_the_configured_image_and_arguments_split_as_a_shell_would(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    defaults = {
        "NUFI_DEPLOYMENT_DEFAULT_IMAGE": "nufi-mock:0.1.0",
        "NUFI_DEPLOYMENT_DEFAULT_ARGS": '["inference"]',
    }
    async with workload_dashboard(cluster, tmp_path, defaults) as person:
        project = await new_project("user")
        await open_page(person, "user", "en", f"/deployments?project={project}")
        assert input_of(person, "dep-image").value == "nufi-mock:0.1.0"
        assert input_of(person, "dep-args").value == "inference"
        set_value(person, "dep-accelerator", "lpu")
        person.find(marker="dep-name").type("chat")
        person.find(marker="dep-args").type(' --model "tiny one')
        person.find(marker="dep-create").click()
        await eventually(lambda: holds("quote" in shown(person, "dep-error-args")), within=10)
        person.find(marker="dep-args").type('"')
        person.find(marker="dep-create").click()
        await row_becomes(person, "chat", status="Ready")
        view = await services().deployments.get(USER, project, "chat")
        assert view.image == "nufi-mock:0.1.0"
        deployment = await _deployment_object(cluster, project, "chat")
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        assert container["args"] == ["inference", "--model", "tiny one"]


async def test_bad_fields_are_named_beside_them_in_korean_and_english(person: User) -> None:
    project = await new_project("user")
    await open_page(person, "user", "ko", f"/deployments?project={project}")
    person.find(marker="dep-name").type("Bad_Name")
    person.find(marker="dep-image").type("nufi-mock:inference")
    person.find(marker="dep-create").click()
    await eventually(lambda: holds("DNS-1123 레이블이 아닙니다" in shown(person, "dep-error-name")))
    assert english_sentences(shown(person, "dep-error-name")) == []
    assert "입력값을 확인하세요." in shown(person, "dep-error")
    await person.should_not_see(marker="dep-error-image")
    assert await services().deployments.list(USER, project) == []

    # A count no node can ever give is the service's refusal, beside the count.
    await open_page(person, "user", "en", f"/deployments?project={project}")
    person.find(marker="dep-name").type("huge")
    person.find(marker="dep-image").type("nufi-mock:inference")
    set_value(person, "dep-accelerator", "lpu")
    set_value(person, "dep-count", 7)
    person.find(marker="dep-create").click()
    await eventually(lambda: holds("ask for at most 6" in shown(person, "dep-error-accelerator.count")))
    assert "Check the fields below." in shown(person, "dep-error")
    # The refusal says it: the red warning under the count does not repeat it, until the count changes.
    assert fit_warning(person, "dep-accelerator") is None
    set_value(person, "dep-count", 8)
    await person.should_not_see(marker="dep-error-accelerator.count")
    assert (fit_warning(person, "dep-accelerator") or ("",))[0] == "never"

    # An env line that is not KEY=VALUE is named beside the env field.
    person.find(marker="dep-env").type("JUSTAWORD")
    person.find(marker="dep-create").click()
    await eventually(lambda: holds("JUSTAWORD" in shown(person, "dep-error-env")))


async def test_scale_and_delete_from_the_row(person: User) -> None:
    project = await new_project("user")
    await deploy(project, "llm", 1)
    await open_page(person, "user", "en", f"/deployments?project={project}")
    await row_becomes(person, "llm", status="Ready", ready="1 / 1")

    send(person, "scale", "llm")
    await person.should_see("Scale llm")
    set_value(person, "scale-replicas", 0)
    person.find(marker="scale-apply").click()
    await row_becomes(person, "llm", status="ScaledDown", ready="0 / 0", status_text="Scaled down")
    assert (await services().deployments.get(USER, project, "llm")).replicas == 0

    send(person, "delete", "llm")
    await person.should_see("Delete the deployment llm?")
    person.find(marker="delete-confirm").click()
    await row_gone(person, "llm")
    with pytest.raises(NotFound):
        await services().deployments.get(USER, project, "llm")


async def test_someone_in_no_project_is_told_to_ask_an_admin(person: User) -> None:
    for path in ("/deployments", "/labs"):
        await as_(person, "user", "en").open(path)
        await person.should_see("You are not a member of any project")
        await person.should_see("Ask an administrator to add you to one.")
        await person.should_not_see(kind=ui.table)
    await as_(person, "user", "ko").open("/deployments")
    await person.should_see("소속된 프로젝트가 없습니다")


async def test_the_sidebar_offers_workloads_to_everyone_and_projects_to_admins(person: User) -> None:
    await as_(person, "user", "en").open("/deployments")
    await person.should_see("Deployments")
    await person.should_see("Labs")
    await person.should_not_see("Projects")
    await as_(person, "admin", "ko").open("/deployments")
    await person.should_see("워크로드")
    await person.should_see("프로젝트")
