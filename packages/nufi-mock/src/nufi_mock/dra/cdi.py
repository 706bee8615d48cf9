"""CDI specs for prepared claims: one JSON file per claim, one CDI device per request, whose container
edits name the request's LPUs in ``LPU_VISIBLE_DEVICES``, as the device plugin's Allocate does."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from nufi_mock.atomic import write_atomically
from nufi_mock.deviceplugin import VISIBLE_DEVICES_ENV

from .config import CDI_KIND

CDI_VERSION = "0.6.0"

# CDI device names allow letters, digits, '_', '.', '-' and ':'; a firstAvailable result's request is
# "<request>/<subrequest>".
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_.:-]")


def cdi_device_name(claim_uid: str, request: str) -> str:
    return f"{claim_uid}-{_NOT_IN_NAME.sub('-', request)}"


def cdi_device_id(claim_uid: str, request: str) -> str:
    """The fully qualified id the kubelet hands the runtime: ``hyperaccel.ai/lpu=<name>``."""
    return f"{CDI_KIND}={cdi_device_name(claim_uid, request)}"


def spec_path(cdi_dir: Path, claim_uid: str) -> Path:
    return cdi_dir / f"{CDI_KIND.replace('/', '-')}_{claim_uid}.json"


def claim_spec(claim_uid: str, devices_by_request: Mapping[str, Sequence[str]]) -> dict[str, object]:
    return {
        "cdiVersion": CDI_VERSION,
        "kind": CDI_KIND,
        "devices": [
            {
                "name": cdi_device_name(claim_uid, request),
                "containerEdits": {"env": [f"{VISIBLE_DEVICES_ENV}={','.join(devices)}"]},
            }
            for request, devices in devices_by_request.items()
        ],
    }


def write_claim_spec(cdi_dir: Path, claim_uid: str, devices_by_request: Mapping[str, Sequence[str]]) -> Path:
    path = spec_path(cdi_dir, claim_uid)
    write_atomically(path, json.dumps(claim_spec(claim_uid, devices_by_request), indent=2))
    return path


def remove_claim_spec(cdi_dir: Path, claim_uid: str) -> None:
    spec_path(cdi_dir, claim_uid).unlink(missing_ok=True)
