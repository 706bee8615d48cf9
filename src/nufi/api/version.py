"""GET /api/v1/version: what is running."""

from __future__ import annotations

import platform
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from nufi import __version__
from nufi.api.services import get_settings
from nufi.config import Settings

router = APIRouter(prefix="/api/v1", tags=["meta"])


class VersionInfo(BaseModel):
    version: str = Field(description="NuFi release")
    python: str = Field(description="Python version of the server process")
    git_commit: str | None = Field(default=None, description="Source commit, when the build recorded it")


@router.get("/version", response_model=VersionInfo, response_model_exclude_none=True)
async def version(settings: Annotated[Settings, Depends(get_settings)]) -> VersionInfo:
    return VersionInfo(version=__version__, python=platform.python_version(), git_commit=settings.git_commit)
