"""Thermal traffic control: policies per device type (admin), a deployment's override (members),
the live status and the history (everyone signed in), a dry run over history (admin)."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from nufi.api.auth import ADMIN_RESPONSES, AUTH_RESPONSES, AdminPrincipal, CurrentPrincipal
from nufi.api.projects import PROJECT_RESPONSES, ProjectAccess
from nufi.api.schemas.problem import NOT_FOUND
from nufi.api.schemas.thermal import (
    DryRunRequest,
    DryRunView,
    EventList,
    EventView,
    OverrideView,
    PolicyList,
    PolicyView,
    StatusView,
)
from nufi.api.services import get_services
from nufi.messages import Message, MessageModel
from nufi.thermal.effective import PolicyEntry
from nufi.thermal.history.records import event_values
from nufi.thermal.policy import PolicyOverride, ThermalPolicy
from nufi.thermal.protection.status import ThermalStatus
from nufi.thermal.service import OverrideEntry, ThermalService


def get_thermal(request: Request) -> ThermalService:
    return get_services(request).thermal


Thermal = Annotated[ThermalService, Depends(get_thermal)]

router = APIRouter(prefix="/api/v1/thermal", tags=["thermal"], responses=AUTH_RESPONSES)
admin_router = APIRouter(prefix="/api/v1/admin/thermal", tags=["admin"], responses=ADMIN_RESPONSES)
# Every override route reads or writes a deployment of the project in its path: members only.
override_router = APIRouter(
    prefix="/api/v1/projects", tags=["projects"], responses=PROJECT_RESPONSES, dependencies=[ProjectAccess]
)
OVERRIDE_PATH = "/{project}/deployments/{name}/thermal"


def _override_view(entry: OverrideEntry) -> OverrideView:
    return OverrideView(
        device_type=entry.device_type,
        override=entry.override,
        effective=entry.effective,
        **_said("not_honoured", entry.not_honoured),
    )


def _view(entry: PolicyEntry) -> PolicyView:
    values = dataclasses.asdict(entry) | {"policy": entry.policy}
    said = _said("unreadable", entry.unreadable) | _said_all("warning", entry.warnings, "warnings")
    return PolicyView.model_validate(values | said)


@router.get("/policies", summary="Every device type's temperature policy")
async def list_policies(principal: CurrentPrincipal, thermal: Thermal) -> PolicyList:
    return PolicyList(items=[_view(entry) for entry in await thermal.policies(principal)])


@router.get("/status", summary="Per node: normal, hot or stale, and the pods whose traffic is affected")
async def status(principal: CurrentPrincipal, thermal: Thermal) -> StatusView:
    return _status_view(await thermal.status(principal))


def _status_view(status: ThermalStatus) -> StatusView:
    """The status with each reason twice: in English (as the API always said it) and as a message."""
    data = dataclasses.asdict(status)
    data["problems"] = [problem.text("en") for problem in status.problems]
    data["problem_messages"] = [problem.to_data() for problem in status.problems]
    for entry, kind in zip(data["types"], status.types, strict=True):
        entry.update(_said("unusable", kind.unusable))
        if kind.breaker is not None:
            entry["breaker"]["held"] = kind.breaker.held
        for node_data, node in zip(entry["nodes"], kind.nodes, strict=True):
            node_data.update(_said("stale_reason", node.stale_reason))
            for pod_data, pod in zip(node_data["pods"], node.pods, strict=True):
                pod_data.update(_said("reason", pod.reason))
    return StatusView.model_validate(data)


def _said(name: str, message: Message | None) -> dict[str, Any]:
    if message is None:
        return {name: None, f"{name}_message": None}
    return {name: message.text("en"), f"{name}_message": message.to_data()}


def _said_all(name: str, messages: tuple[Message, ...], plural: str) -> dict[str, Any]:
    """`messages` in English under `plural`, and as messages under `name`_messages."""
    return {
        plural: [message.text("en") for message in messages],
        f"{name}_messages": [MessageModel.of(message) for message in messages],
    }


@router.get("/events", summary="The history of transitions, newest first")
async def events(
    principal: CurrentPrincipal,
    thermal: Thermal,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    device_type: str | None = None,
    node: str | None = None,
) -> EventList:
    rows = await thermal.events(principal, limit=limit, device_type=device_type, node=node)
    return EventList(items=[EventView(**event_values(row)) for row in rows])


@admin_router.put(
    "/policies/{device_id}", summary="Set a device type's temperature policy", responses={404: NOT_FOUND}
)
async def put_policy(
    device_id: str, policy: ThermalPolicy, principal: AdminPrincipal, thermal: Thermal
) -> PolicyView:
    return _view(await thermal.put_policy(principal, device_id, policy))


@admin_router.post(
    "/policies/{device_id}/dry-run",
    summary="Replay a proposed policy over Prometheus history (default the last 24 h)",
    responses={404: NOT_FOUND},
)
async def dry_run(
    device_id: str, payload: DryRunRequest, principal: AdminPrincipal, thermal: Thermal
) -> DryRunView:
    result = await thermal.dry_run(principal, device_id, payload.policy, start=payload.start, end=payload.end)
    view = DryRunView.model_validate(dataclasses.replace(result, left_out=()))
    return view.model_copy(update=_said_all("left_out", result.left_out, "left_out"))


@override_router.get(
    OVERRIDE_PATH,
    summary="A deployment's thermal override (null: the device type's policy applies)",
)
async def get_override(
    project: str, name: str, principal: CurrentPrincipal, thermal: Thermal
) -> OverrideView:
    return _override_view(await thermal.override(principal, project, name))


@override_router.put(
    OVERRIDE_PATH,
    summary="Override the device type's policy for one deployment (enabled, trip, resume)",
)
async def put_override(
    project: str, name: str, override: PolicyOverride, principal: CurrentPrincipal, thermal: Thermal
) -> OverrideView:
    return _override_view(await thermal.set_override(principal, project, name, override))


@override_router.delete(
    OVERRIDE_PATH,
    summary="Remove a deployment's override",
    status_code=204,
)
async def delete_override(project: str, name: str, principal: CurrentPrincipal, thermal: Thermal) -> None:
    await thermal.set_override(principal, project, name, None)
