"""Validation of a ResourceClaim's status as the scheduler and drivers write it: who holds the claim
(`reservedFor`), what was allocated (`allocation`, set once), and per-device status from drivers."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

from nufi_sandbox.devcluster.dra import objects as limits
from nufi_sandbox.devcluster.dra.validation_claims import (
    RequestNames,
    opaque_config_causes,
    request_ref_causes,
)
from nufi_sandbox.devcluster.dra.validation_lists import each, each_unique, itself
from nufi_sandbox.devcluster.dra.validation_names import driver_name_causes, label_causes, pool_name_causes
from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    forbidden,
    invalid_shown,
    not_supported,
    required,
)
from nufi_sandbox.devcluster.validation.node_selector import node_selector_causes

_SOURCES = ("FromClaim", "FromClass")


def _consumer(value: object, path: str) -> list[Cause]:
    consumer = as_map(value)
    return [required(f"{path}.{key}") for key in ("resource", "name", "uid") if not consumer.get(key)]


def _device_id(entry: Mapping[str, Any]) -> str:
    parts = [as_str(entry.get(k)) for k in ("driver", "pool", "device")]
    if entry.get("shareID"):
        parts.append(as_str(entry["shareID"]))
    return "/".join(parts)


def _device_causes(entry: Mapping[str, Any], path: str) -> list[Cause]:
    causes = driver_name_causes(as_str(entry.get("driver")), f"{path}.driver")
    causes += pool_name_causes(as_str(entry.get("pool")), f"{path}.pool")
    return causes + label_causes(as_str(entry.get("device")), f"{path}.device")


def _result(value: object, path: str, names: RequestNames) -> list[Cause]:
    result = as_map(value)
    causes = request_ref_causes(result.get("request"), f"{path}.request", names)
    causes += _device_causes(result, path)
    for key in ("bindingConditions", "bindingFailureConditions"):
        causes += each(result.get(key), limits.BINDING_CONDITIONS_MAX, f"{path}.{key}", lambda _c, _p: [])
    return causes


def _allocation_config(value: object, path: str, names: RequestNames) -> list[Cause]:
    config = as_map(value)
    source = as_str(config.get("source"))
    causes = [required(f"{path}.source")] if not source else []
    if source and source not in _SOURCES:
        causes.append(not_supported(f"{path}.source", source, _SOURCES))
    causes += each_unique(
        config.get("requests"),
        limits.REQUESTS_MAX,
        f"{path}.requests",
        lambda ref, at: request_ref_causes(ref, at, names),
        itself,
    )
    return causes + opaque_config_causes(config, path)


def allocation_causes(allocation: Mapping[str, Any], path: str, names: RequestNames) -> list[Cause]:
    """`validateAllocationResult` for a new allocation."""
    devices = as_map(allocation.get("devices"))
    causes = each(
        devices.get("results"),
        limits.ALLOCATION_RESULTS_MAX,
        f"{path}.devices.results",
        lambda r, p: _result(r, p, names),
    )
    causes += each(
        devices.get("config"),
        2 * limits.CONFIG_MAX,
        f"{path}.devices.config",
        lambda c, p: _allocation_config(c, p, names),
    )
    selector = allocation.get("nodeSelector")
    if selector is not None:
        causes += node_selector_causes(as_map(selector), f"{path}.nodeSelector")
    return causes


def _uid(entry: object) -> Hashable:
    return as_str(as_map(entry).get("uid"))


def _status_devices(status: Mapping[str, Any]) -> list[Cause]:
    results = as_list(as_map(as_map(status.get("allocation")).get("devices")).get("results"))
    allocated = {_device_id(as_map(r)) for r in results}

    def one(value: object, path: str) -> list[Cause]:
        entry = as_map(value)
        causes = _device_causes(entry, path)
        if _device_id(entry) not in allocated:
            causes.append(invalid_shown(path, _device_id(entry), "must be an allocated device in the claim"))
        return causes

    return each_unique(status.get("devices"), -1, "status.devices", one, lambda e: _device_id(as_map(e)))


def claim_status_causes(new: Mapping[str, Any], old: Mapping[str, Any], names: RequestNames) -> list[Cause]:
    """`ValidateResourceClaimStatusUpdate`: what a write to `/status` may leave behind."""
    status, before = as_map(new.get("status")), as_map(old.get("status"))
    reserved = as_list(status.get("reservedFor"))
    causes = each_unique(reserved, limits.RESERVED_FOR_MAX, "status.reservedFor", _consumer, _uid)
    causes += _status_devices(status)
    allocation, old_allocation = status.get("allocation"), before.get("allocation")
    if reserved and allocation is None:
        causes.append(forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    elif reserved and as_map(new.get("metadata")).get("deletionTimestamp"):
        earlier = {_uid(c) for c in as_list(before.get("reservedFor"))}
        if any(_uid(c) not in earlier for c in reserved):
            detail = (
                "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"
            )
            causes.append(forbidden("status.reservedFor", detail))
    if allocation is not None and old_allocation is not None:
        if allocation != old_allocation:
            shown = json.dumps(allocation, separators=(",", ":"), sort_keys=True)
            causes.append(invalid_shown("status.allocation", shown, "field is immutable"))
    elif allocation is not None:
        causes += allocation_causes(as_map(allocation), "status.allocation", names)
    return causes
