"""Conditional answers for polled reads: a weak ETag over the body without its age, and a 304 without a
body when `If-None-Match` names it."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from fastapi import Request, Response
from pydantic import BaseModel

# Browsers may keep a body, and must ask again (with If-None-Match) before showing it.
CACHE_CONTROL = "private, no-cache"
_ENTITY_TAG = re.compile(r'(?:W/)?("[^"]*")')


def conditional(request: Request, view: BaseModel, *, ageing: Any) -> Response:
    """`view` as JSON with its ETag, or a 304 without a body when `If-None-Match` names that ETag.

    The tag is weak, over the body without its `ageing` fields (a pydantic `exclude`): a shared
    snapshot read a second later is the same snapshot, only older, and must still match."""
    body = view.model_dump_json().encode()
    tag = "W/" + entity_tag(view.model_dump_json(exclude=ageing).encode())
    headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL}
    if none_match(request.headers.getlist("if-none-match"), tag):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type="application/json", headers=headers)


def entity_tag(body: bytes) -> str:
    """An entity tag for `body`: its SHA-256, base64url, quoted."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
    return f'"{digest}"'


def none_match(values: list[str], tag: str) -> bool:
    """Whether If-None-Match (every header line of it) matches `tag`: `*`, or a listed tag equal to it
    by the weak comparison RFC 9110 prescribes for If-None-Match (`W/` ignored)."""
    opaque = tag.removeprefix("W/")
    for value in values:
        if value.strip() == "*":
            return True
        if opaque in _ENTITY_TAG.findall(value):
            return True
    return False
