"""The labs API's responses."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.json_schema import SkipJsonSchema

from nufi.api.schemas.workloads import reason_fields
from nufi.messages import MessageModel
from nufi.workloads.labs.activity import ActivitySource, ActivityState
from nufi.workloads.labs.model import Backend, Lab, LabKind, LabStatus


class LabAcceleratorView(BaseModel):
    device_type: str
    resource_key: str = Field(description="the extended resource in the pod's limits, e.g. hyperaccel.ai/lpu")
    count: int


class LabActivityView(BaseModel):
    last_active: datetime | None = Field(
        description=(
            "when the lab was last used, as its server says (RFC 3339); null when it cannot be read "
            "(state unreachable) or its server has had no use since it started"
        )
    )
    source: ActivitySource = Field(
        description="code-server: its /healthz heartbeat; jupyter: its /api/status and kernels"
    )
    state: ActivityState = Field(
        description=(
            "alive: used within the last minute; idle: not since; busy: a kernel is running code; "
            "unreachable: the lab did not answer as its server does"
        )
    )
    read_at: datetime = Field(description="when NuFi read it (readings are kept a few seconds)")

    # Unannotated on purpose, as LabView's: the routes leave out absent fields, but a null
    # last_active says something (unknown, or no use since the start) and stays.
    @model_serializer(mode="wrap")
    def _last_active_always(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data: dict[str, Any] = handler(self)
        data.setdefault("last_active", None)
        return data


class LabView(BaseModel):
    project: str
    name: str
    kind: LabKind
    image: str
    backend: Backend = Field(
        description="notebook: a Kubeflow Notebook (the cluster has its CRD); statefulset: NuFi's own"
    )
    accelerator: LabAcceleratorView
    storage_gib: int
    status: LabStatus
    # Absent unless Pending (what the lab waits for, in the accelerator's words) or Error.
    reason: str | SkipJsonSchema[None] = Field(
        default=None, description="why Pending, or what broke (English)"
    )
    reason_message: MessageModel | SkipJsonSchema[None] = Field(
        default=None, description="the reason as a message code and its params, to word in any language"
    )
    url: str = Field(
        description=(
            "the path on NuFi's dashboard that opens the lab, e.g. /labs/<project>/<name>/: a browser "
            "opening it there is signed in to the lab and sent to origin_url"
        )
    )
    origin_url: str | None = Field(
        description=(
            "where the lab's pages are served, on an origin of its own under NUFI_LAB_BASE_DOMAIN, e.g. "
            "https://<name>--<project>.<lab base domain>/labs/<project>/<name>/; null when no lab base "
            "domain is set (labs then open in no browser)"
        )
    )
    created_at: str | SkipJsonSchema[None] = None
    activity: LabActivityView | None = Field(
        default=None,
        description="when the lab was last used, read from its server; null unless the lab is Ready",
    )

    # Unannotated on purpose: pydantic then documents the model's own fields, where a return type
    # would replace them in the OpenAPI schema.
    @model_serializer(mode="wrap")
    def _origin_url_always(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        # The routes leave out absent fields (reason, created_at); origin_url is null instead, so a
        # client tells "no lab base domain" from an older NuFi.
        data: dict[str, Any] = handler(self)
        data.setdefault("origin_url", self.origin_url)
        data.setdefault("activity", None)
        return data

    @classmethod
    def of(cls, lab: Lab) -> LabView:
        # The view is the record, its reason worded for every reader.
        return cls.model_validate({**asdict(lab), **reason_fields(lab.reason)})


class LabList(BaseModel):
    items: list[LabView]
