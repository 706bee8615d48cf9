"""Liveness (/healthz) and readiness (/readyz) for probes and load balancers."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from nufi.api.problems import ProblemResponse, problem_response, request_id_of
from nufi.api.schemas.problem import ResponseDocs, problem
from nufi.api.services import get_services
from nufi.health import DependencyStatus
from nufi.services import Services

router = APIRouter(tags=["health"])


class Liveness(BaseModel):
    status: Literal["ok"] = "ok"


class ReadyBody(BaseModel):
    status: Literal["ready"] = "ready"
    dependencies: list[DependencyStatus]


_NOT_READY_DOC: ResponseDocs = {
    503: problem(
        "A required dependency (the database) is failing; the problem lists every dependency under "
        "`dependencies`."
    )
}


@router.get("/healthz", response_model=Liveness)
async def healthz() -> Liveness:
    """The process is up and serving; says nothing about dependencies."""
    return Liveness()


@router.get("/readyz", response_model=ReadyBody, responses=_NOT_READY_DOC)
async def readyz(
    request: Request, services: Annotated[Services, Depends(get_services)]
) -> ReadyBody | ProblemResponse:
    """Ready when every required dependency answers (the database: nothing can be served without it).
    The others (Kubernetes, the metrics engine, alert rules) are listed with `required: false`: when
    they fail, the routes and pages that need them say so and the rest keeps serving."""
    report = await services.readiness.run()
    if report.ready:
        return ReadyBody(dependencies=report.dependencies)
    failing = "; ".join(f"{d.name}: {d.detail}" for d in report.failing)
    return problem_response(
        status=503,
        type="not-ready",
        code="health.not_ready",
        params={"failing": failing},
        title="Not ready",
        request_id=request_id_of(request),
        extra={"dependencies": [d.model_dump() for d in report.dependencies]},
    )
