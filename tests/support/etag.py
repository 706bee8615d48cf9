"""The weak entity tag the monitoring routes give a body, computed the way a client can check it."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any


def weak_tag(body: bytes) -> str:
    """`W/` and the SHA-256 of the body's compact JSON without any `age_seconds`."""
    unaged = json.dumps(_without_age(json.loads(body)), separators=(",", ":"), ensure_ascii=False)
    digest = base64.urlsafe_b64encode(hashlib.sha256(unaged.encode()).digest()).rstrip(b"=").decode()
    return f'W/"{digest}"'


def _without_age(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_age(v) for k, v in value.items() if k != "age_seconds"}
    if isinstance(value, list):
        return [_without_age(v) for v in value]
    return value
