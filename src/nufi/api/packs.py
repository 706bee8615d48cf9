"""Device packs: a type exported as a pack (JSON or YAML), packs applied or diffed (admins), and the
packs' JSON Schema (everyone signed in)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from nufi.api.auth import ADMIN_RESPONSES, AUTH_RESPONSES, AdminPrincipal, CurrentPrincipal
from nufi.api.schemas.problem import CONFLICT, NOT_FOUND
from nufi.api.services import get_services
from nufi.packs import DevicePack, dump_packs, json_schema
from nufi.packs.diff import ApplyOutcome
from nufi.packs.service import PackService

YAML = "application/yaml"


def get_packs(request: Request) -> PackService:
    return get_services(request).packs


Packs = Annotated[PackService, Depends(get_packs)]

router = APIRouter(prefix="/api/v1/device-packs", tags=["device packs"], responses=AUTH_RESPONSES)
admin_router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=ADMIN_RESPONSES)


class ApplyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Any: a document that is not a mapping is refused by the pack checks, naming `documents[i]`.
    documents: list[Any] = Field(
        max_length=1000,
        description="Pack documents (GET /api/v1/device-packs/schema); each is checked, naming the "
        "offending field by its path (`documents[0].spec.metrics.temperature`).",
    )
    dry_run: bool = Field(default=False, description="check and compare only: write nothing (a diff)")
    force: bool = Field(
        default=False,
        description="save types even when no node advertises the resource key or a metric check fails",
    )
    prune: bool = Field(default=False, description="delete the custom types no document names")


class PackSchema(BaseModel):
    """A JSON Schema (draft 2020-12) of one pack document."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: str = Field(alias="$schema")
    id: str = Field(alias="$id")
    title: str
    type: str
    properties: dict[str, Any]
    required: list[str]


@router.get("/schema", summary="The JSON Schema of a device pack document")
async def pack_schema(principal: CurrentPrincipal) -> PackSchema:
    return PackSchema.model_validate(json_schema())


@admin_router.get(
    "/devices/{device_type_id}/pack",
    summary="A device type as a pack document (`?format=yaml` for YAML)",
    response_model=DevicePack,
    response_model_exclude_none=True,
    responses={
        # The YAML is the same document (dump_packs of it).
        200: {"content": {YAML: {"schema": {"$ref": "#/components/schemas/DevicePack"}}}},
        404: NOT_FOUND,
    },
)
async def export_pack(
    device_type_id: str,
    principal: AdminPrincipal,
    packs: Packs,
    format: Annotated[Literal["json", "yaml"], Query(description="json (default) or yaml")] = "json",
) -> Any:
    pack = await packs.export(principal, device_type_id)
    if format == "yaml":
        return Response(dump_packs([pack.document()]), media_type=YAML)
    return pack


@admin_router.post(
    "/device-packs/apply",
    summary="Create or update device types from packs; `dry_run` shows the changes only",
    responses={409: CONFLICT},
)
async def apply_packs(request: ApplyRequest, principal: AdminPrincipal, packs: Packs) -> ApplyOutcome:
    return await packs.apply(
        principal, request.documents, dry_run=request.dry_run, force=request.force, prune=request.prune
    )
