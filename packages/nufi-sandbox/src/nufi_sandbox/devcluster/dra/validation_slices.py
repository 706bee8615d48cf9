"""Validation of a ResourceSlice: its driver and pool, which nodes it serves, and its devices with their
attributes, capacities and taints, with upstream's paths and texts (`validateResourceSliceSpec`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.dra import objects as limits
from nufi_sandbox.devcluster.dra.validation_lists import by_name, each, each_entry, each_unique
from nufi_sandbox.devcluster.dra.validation_names import (
    driver_name_causes,
    label_causes,
    pool_name_causes,
    qualified_name_causes,
    subdomain_causes,
)
from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_map,
    as_str,
    forbidden,
    invalid,
    invalid_shown,
    not_supported,
    required,
    too_long,
)
from nufi_sandbox.devcluster.validation.names import label_value_errors, qualified_name_errors
from nufi_sandbox.devcluster.validation.node_selector import node_selector_causes

_NUMBER = r"(0|[1-9]\d*)"
_PRERELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER = re.compile(
    rf"{_NUMBER}\.{_NUMBER}\.{_NUMBER}(-{_PRERELEASE}(\.{_PRERELEASE})*)?(\+{_BUILD}(\.{_BUILD})*)?"
)
_KEY_LIMIT = limits.DEVICE_MAX_DOMAIN + 1 + limits.DEVICE_MAX_ID
_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
_WHERE = ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
_PER_DEVICE_FIELDS = "`nodeName`, `nodeSelector` and `allNodes`"
_PER_DEVICE_SET = "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
_MAX_FIELDS = limits.DEVICE_MAX_ATTRIBUTES_AND_CAPACITIES
_ONE_OF = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _attribute(value: object, path: str) -> list[Cause]:
    attribute = as_map(value)
    present = [kind for kind in ("bool", "int", "string", "version") if attribute.get(kind) is not None]
    causes: list[Cause] = []
    text = attribute.get("string")
    if isinstance(text, str) and len(text) > limits.ATTRIBUTE_VALUE_MAX:
        causes.append(too_long(f"{path}.string", limits.ATTRIBUTE_VALUE_MAX))
    version = attribute.get("version")
    if version is not None:
        if not _SEMVER.fullmatch(as_str(version)):
            causes.append(
                invalid(
                    f"{path}.version",
                    as_str(version),
                    "must be a string compatible with semver.org spec 2.0.0",
                )
            )
        if len(as_str(version)) > limits.ATTRIBUTE_VALUE_MAX:
            causes.append(too_long(f"{path}.version", limits.ATTRIBUTE_VALUE_MAX))
    if not present:
        causes.append(invalid(path, "", "exactly one value must be specified"))
    elif len(present) > 1:
        # Upstream prints its Go struct here; the same fields as JSON carry the same information.
        causes.append(invalid_shown(path, _json(attribute), "exactly one value must be specified"))
    return causes


def _capacity(value: object, path: str, shared: bool) -> list[Cause]:
    if not shared and as_map(value).get("requestPolicy") is not None:
        return [forbidden(f"{path}.requestPolicy", "allowMultipleAllocations must be true")]
    return []


def _taint(value: object, path: str) -> list[Cause]:
    taint = as_map(value)
    key, effect = as_str(taint.get("key")), as_str(taint.get("effect"))
    causes = [invalid(f"{path}.key", key, msg) for msg in qualified_name_errors(key)]
    if taint.get("value"):
        text = as_str(taint["value"])
        causes += [invalid(f"{path}.value", text, msg) for msg in label_value_errors(text)]
    if not effect:
        causes.append(required(f"{path}.effect"))
    elif effect not in _TAINT_EFFECTS:
        causes.append(not_supported(f"{path}.effect", effect, _TAINT_EFFECTS))
    return causes


def _device_nodes(device: Mapping[str, Any], path: str, per_device: bool) -> list[Cause]:
    if not per_device:
        if any(device.get(f) is not None for f in ("nodeName", "nodeSelector", "allNodes")):
            return [invalid(path, "null", f"{_PER_DEVICE_FIELDS} can only be set if {_PER_DEVICE_SET}")]
        return []
    causes, chosen = _where(
        device, path, ("nodeName", "nodeSelector", "allNodes"), empty_name="must not be empty"
    )
    detail = f"exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when {_PER_DEVICE_SET}"
    if not chosen:
        causes.append(required(path, detail))
    elif len(chosen) > 1:
        causes.append(invalid(path, "{" + ", ".join(chosen) + "}", detail))
    return causes


def _device(value: object, path: str, per_device: bool) -> list[Cause]:
    device = as_map(value)
    causes = label_causes(by_name(device), f"{path}.name")
    attributes, capacity = as_map(device.get("attributes")), as_map(device.get("capacity"))
    total = len(attributes) + len(capacity)
    if total > limits.DEVICE_MAX_ATTRIBUTES_AND_CAPACITIES:
        detail = f"the total number of attributes and capacities must not exceed {_MAX_FIELDS}"
        causes.append(invalid(path, total, detail))
    causes += each_entry(attributes, f"{path}.attributes", qualified_name_causes, _attribute, _KEY_LIMIT)
    shared = device.get("allowMultipleAllocations") is True
    causes += each_entry(
        capacity, f"{path}.capacity", qualified_name_causes, lambda c, p: _capacity(c, p, shared), _KEY_LIMIT
    )
    causes += each(device.get("taints"), limits.DEVICE_TAINTS_MAX, f"{path}.taints", _taint)
    return causes + _device_nodes(device, path, per_device)


def _where(
    spec: Mapping[str, Any], path: str, fields: tuple[str, ...], empty_name: str
) -> tuple[list[Cause], list[str]]:
    """The node fields that are set, and what is wrong with them (an empty name, a false flag)."""
    causes: list[Cause] = []
    chosen: list[str] = []
    for name in fields:
        value = spec.get(name)
        if value is None:
            continue
        if name == "nodeName" and value == "":
            causes.append(invalid(f"{path}.nodeName", "", empty_name))
        elif name in ("allNodes", "perDeviceNodeSelection") and value is not True:
            causes.append(invalid(f"{path}.{name}", value, "must be either unset or set to true"))
        else:
            chosen.append(f"`{name}`")
            if name == "nodeName":
                causes += subdomain_causes(as_str(value), f"{path}.nodeName")
            elif name == "nodeSelector":
                causes += node_selector_causes(as_map(value), f"{path}.nodeSelector")
    return causes, chosen


def _pool(pool: Mapping[str, Any], path: str) -> list[Cause]:
    causes = pool_name_causes(as_str(pool.get("name")), f"{path}.name")
    count, generation = pool.get("resourceSliceCount", 0), pool.get("generation", 0)
    if not isinstance(count, int) or count <= 0:
        causes.append(invalid(f"{path}.resourceSliceCount", count, "must be greater than zero"))
    if not isinstance(generation, int) or generation < 0:
        causes.append(invalid(f"{path}.generation", generation, "must be greater than or equal to zero"))
    return causes


def slice_spec_causes(spec: Mapping[str, Any]) -> list[Cause]:
    causes = driver_name_causes(as_str(spec.get("driver")), "spec.driver")
    causes += _pool(as_map(spec.get("pool")), "spec.pool")
    where, chosen = _where(
        spec, "spec", _WHERE, empty_name="must be either unset or set to a non-empty string"
    )
    causes += where
    selector = spec.get("nodeSelector")
    if isinstance(selector, Mapping) and len(selector.get("nodeSelectorTerms") or []) != 1:
        terms = _json(selector.get("nodeSelectorTerms") or [])
        causes.append(
            invalid_shown(
                "spec.nodeSelector.nodeSelectorTerms", terms, "must have exactly one node selector term"
            )
        )
    if not chosen:
        causes.append(required("spec", _ONE_OF))
    elif len(chosen) > 1:
        causes.append(
            invalid("spec", "{" + ", ".join(chosen) + "}", f"{_ONE_OF}, but multiple fields are set")
        )
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        causes.append(invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    per_device = spec.get("perDeviceNodeSelection") is True
    causes += each_unique(
        spec.get("devices"),
        limits.SLICE_MAX_DEVICES,
        "spec.devices",
        lambda d, p: _device(d, p, per_device),
        by_name,
    )
    return causes


def _pool_name(spec: Mapping[str, Any]) -> object:
    return as_map(spec.get("pool")).get("name")


def slice_update_causes(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[Cause]:
    """The pool's name, the driver and the node of a slice never change."""
    causes: list[Cause] = []
    for path, before, after in (
        ("spec.pool.name", _pool_name(old), _pool_name(new)),
        ("spec.driver", old.get("driver"), new.get("driver")),
        ("spec.nodeName", old.get("nodeName"), new.get("nodeName")),
    ):
        if before != after:
            causes.append(invalid(path, after if after is not None else "null", "field is immutable"))
    return causes
