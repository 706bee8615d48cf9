"""Alerts: what fires now (everyone signed in), and each type's thresholds and rules (admins)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from nufi.alerts.firing import FiringAlert
from nufi.alerts.service import AlertService, ThresholdsEntry
from nufi.alerts.sync import RulesStatus
from nufi.alerts.thresholds import AlertThresholds
from nufi.api.auth import ADMIN_RESPONSES, AUTH_RESPONSES, AdminPrincipal, CurrentPrincipal
from nufi.api.problems import current_language
from nufi.api.schemas.alerts import AlertList, AlertView, RulesStatusView, ThresholdsView
from nufi.api.schemas.problem import NOT_FOUND, problem
from nufi.api.services import service
from nufi.messages import Language, MessageModel

Alerts = Annotated[AlertService, service(lambda services: services.alerts)]

router = APIRouter(prefix="/api/v1/alerts", tags=["alerts"], responses=AUTH_RESPONSES)
admin_router = APIRouter(prefix="/api/v1/admin/devices", tags=["admin"], responses=ADMIN_RESPONSES)


@router.get(
    "",
    summary="Alerts of NuFi's rules firing or pending now, from Prometheus",
    responses={503: problem("Prometheus cannot be read (the problem names `prometheus`).")},
)
async def list_alerts(
    principal: CurrentPrincipal,
    alerts: Alerts,
    device_type: Annotated[str | None, Query(max_length=63, description="Only this type's alerts")] = None,
) -> AlertList:
    view = await alerts.alerts(principal, device_type=device_type)
    language = current_language()
    items = [_alert(a, view.type_names.get(a.device_type, a.device_type), language) for a in view.alerts]
    return AlertList(items=items, rules=_rules(view.rules), alertmanager_url=view.alertmanager_url)


@admin_router.get(
    "/{device_id}/alerts",
    summary="A device type's alert thresholds and its rules",
    responses={404: NOT_FOUND},
)
async def get_thresholds(device_id: str, principal: AdminPrincipal, alerts: Alerts) -> ThresholdsView:
    return _thresholds(await alerts.thresholds(principal, device_id))


@admin_router.put(
    "/{device_id}/alerts",
    summary="Set a device type's alert thresholds; its rules are written out at once",
    responses={404: NOT_FOUND},
)
async def put_thresholds(
    device_id: str, thresholds: AlertThresholds, principal: AdminPrincipal, alerts: Alerts
) -> ThresholdsView:
    return _thresholds(await alerts.put_thresholds(principal, device_id, thresholds))


def _alert(alert: FiringAlert, type_name: str, language: Language) -> AlertView:
    summary = alert.summary(type_name)
    return AlertView(
        **dataclasses.asdict(alert), summary=summary.text(language), summary_message=MessageModel.of(summary)
    )


def _rules(status: RulesStatus) -> RulesStatusView:
    problem = status.problem
    return RulesStatusView(
        target=status.target,
        configured=status.configured,
        ok=status.ok,
        location=status.location,
        groups=list(status.groups),
        problem=None if problem is None else problem.text("en"),
        problem_message=None if problem is None else MessageModel.of(problem),
        last_success_at=_at(status.last_success_at),
    )


def _thresholds(entry: ThresholdsEntry) -> ThresholdsView:
    rules = None if entry.rules is None else entry.rules.document
    return ThresholdsView.model_validate(dataclasses.asdict(entry) | {"rules": rules})


def _at(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch).astimezone()
