"""Bodies of the alerts routes: the alerts firing now, and a type's thresholds with its rules."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from nufi.alerts.thresholds import AlertThresholds
from nufi.api.schemas.values import Timestamp
from nufi.messages import MessageModel


class AlertView(BaseModel):
    name: str = Field(description="The alert's name, e.g. NuFiDeviceHot")
    rule: str = Field(
        description="Which of the type's rules: hot, memory, unhealthy, exporter_down, missing_device"
    )
    device_type: str
    state: str = Field(description="`firing`, or `pending` while the rule's `for:` has not passed")
    severity: str
    node: str | None = None
    device: str | None = Field(
        default=None, description="None for a node's alert (exporter down, missing device)"
    )
    pod: str | None = Field(
        default=None, description="The pod holding the device; 'another project' when hidden"
    )
    namespace: str | None = None
    value: float | None = None
    active_since: Timestamp | None = None
    summary: str = Field(description="One line in the language asked for (Accept-Language)")
    summary_message: MessageModel


class RulesStatusView(BaseModel):
    target: str = Field(description="Where the rules are written: `prometheusrule`, `file`, or `none`")
    configured: bool
    ok: bool
    location: str = Field(description="The rules directory, or `<namespace>/prometheusrules`")
    groups: list[str] = Field(description="The device types whose rule groups are written")
    problem: str | None = None
    problem_message: MessageModel | None = None
    last_success_at: Timestamp | None = None


class AlertList(BaseModel):
    items: list[AlertView]
    rules: RulesStatusView
    alertmanager_url: str | None = None


class ThresholdsView(BaseModel):
    device_type: str
    thresholds: AlertThresholds
    hot_celsius: float = Field(description="The hot rule's temperature in force (°C)")
    # `default`, or `admin` (set through PUT).
    source: str
    rules: dict[str, Any] | None = Field(
        description="The Prometheus rule group written for the type (null while the type is disabled)"
    )
    revision: int | None = None
    updated_by: str | None = None
    updated_at: Timestamp | None = None
