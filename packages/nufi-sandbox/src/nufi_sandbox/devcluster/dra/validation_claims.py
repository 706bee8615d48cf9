"""Validation of what a ResourceClaim asks for (its requests, constraints and config) and of a
DeviceClass, with upstream's paths and texts (`pkg/apis/resource/validation`, v1 field layout).

A CEL selector must compile (`dra.cel`); a stored one that did not change is not compiled again, so a
class keeps updating after the CEL environment grew stricter, as upstream lets it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nufi_sandbox.devcluster.dra import objects as limits
from nufi_sandbox.devcluster.dra.cel import compile_error
from nufi_sandbox.devcluster.dra.objects import ALL, EXACT_COUNT
from nufi_sandbox.devcluster.dra.validation_lists import by_name, each, each_unique, itself
from nufi_sandbox.devcluster.dra.validation_names import (
    driver_name_causes,
    fully_qualified_name_causes,
    label_causes,
    subdomain_causes,
)
from nufi_sandbox.devcluster.validation.field_causes import (
    Cause,
    as_list,
    as_map,
    as_str,
    invalid,
    not_supported,
    required,
    too_long,
)
from nufi_sandbox.devcluster.validation.pod_spec import is_extended_resource

RequestNames = dict[str, set[str]]
_REQUEST_REF = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)
_ONE_KIND = "exactly one of `exactly` or `firstAvailable` is required"


def request_names(devices: Mapping[str, Any]) -> RequestNames:
    """Request name → its subrequests' names (empty for an `exactly` request)."""
    names: RequestNames = {}
    for request in (as_map(r) for r in as_list(devices.get("requests"))):
        names[as_str(request.get("name"))] = {by_name(sub) for sub in as_list(request.get("firstAvailable"))}
    return names


def request_ref_causes(ref: object, path: str, names: RequestNames) -> list[Cause]:
    text = as_str(ref)
    segments = text.split("/")
    if len(segments) > 2:
        return [invalid(path, text, _REQUEST_REF)]
    causes = [cause for segment in segments for cause in label_causes(segment, path)]
    known = segments[0] in names and (len(segments) == 1 or segments[1] in names[segments[0]])
    if not known:
        causes.append(invalid(path, text, _REQUEST_REF))
    return causes


def selector_causes(selectors: object, path: str, stored: bool) -> list[Cause]:
    def one(selector: object, at: str) -> list[Cause]:
        cel = as_map(selector).get("cel")
        if not isinstance(cel, Mapping):
            return [required(f"{at}.cel")]
        expression, where = as_str(cel.get("expression")), f"{at}.cel.expression"
        if stored:
            return []
        if len(expression) > limits.CEL_EXPRESSION_MAX:
            return [too_long(where, limits.CEL_EXPRESSION_MAX)]
        if not expression:
            return [required(where)]
        problem = compile_error(expression)
        return [invalid(where, expression, problem)] if problem else []

    return each(selectors, limits.SELECTORS_MAX, path, one)


def _allocation_mode(request: Mapping[str, Any], path: str) -> list[Cause]:
    mode, count = request.get("allocationMode"), request.get("count", 0)
    if mode == ALL:
        return (
            [invalid(f"{path}.count", count, f"must not be specified when allocationMode is '{ALL}'")]
            if count
            else []
        )
    if mode == EXACT_COUNT:
        return (
            []
            if isinstance(count, int) and count > 0
            else [invalid(f"{path}.count", count, "must be greater than zero")]
        )
    return [not_supported(f"{path}.allocationMode", as_str(mode), (ALL, EXACT_COUNT))]


def _device_class_name(name: str, path: str) -> list[Cause]:
    return subdomain_causes(name, path) if name else [required(path)]


def _exact(request: Mapping[str, Any], path: str) -> list[Cause]:
    causes = _device_class_name(as_str(request.get("deviceClassName")), f"{path}.deviceClassName")
    causes += selector_causes(request.get("selectors"), f"{path}.selectors", stored=False)
    causes += _allocation_mode(request, path)
    causes += each(
        request.get("tolerations"), limits.TOLERATIONS_MAX, f"{path}.tolerations", lambda _t, _p: []
    )
    return causes


def _subrequest(sub: object, path: str) -> list[Cause]:
    return label_causes(by_name(sub), f"{path}.name") + _exact(as_map(sub), path)


def _request(value: object, path: str) -> list[Cause]:
    request = as_map(value)
    causes = label_causes(as_str(request.get("name")), f"{path}.name")
    alternatives, exactly = as_list(request.get("firstAvailable")), request.get("exactly")
    if not alternatives and exactly is None:
        return [*causes, required(path, _ONE_KIND)]
    if alternatives and exactly is not None:
        return [*causes, invalid(path, "null", f"{_ONE_KIND}, but multiple fields are set")]
    if alternatives:
        return causes + each_unique(
            alternatives, limits.FIRST_AVAILABLE_MAX, f"{path}.firstAvailable", _subrequest, by_name
        )
    return causes + _exact(as_map(exactly), f"{path}.exactly")


def _constraint(value: object, path: str, names: RequestNames) -> list[Cause]:
    constraint = as_map(value)
    causes = each_unique(
        constraint.get("requests"),
        limits.REQUESTS_MAX,
        f"{path}.requests",
        lambda ref, at: request_ref_causes(ref, at, names),
        itself,
    )
    for attribute in ("matchAttribute", "distinctAttribute"):
        if constraint.get(attribute) is not None:
            return causes + fully_qualified_name_causes(as_str(constraint[attribute]), f"{path}.{attribute}")
    return [*causes, required(f"{path}.matchAttribute")]


def opaque_config_causes(value: object, path: str) -> list[Cause]:
    """A `DeviceConfiguration`: only `opaque` exists, with a driver and a JSON object of parameters."""
    opaque = as_map(value).get("opaque")
    if not isinstance(opaque, Mapping):
        return [required(f"{path}.opaque")]
    causes = driver_name_causes(as_str(opaque.get("driver")), f"{path}.opaque.driver")
    parameters, where = opaque.get("parameters"), f"{path}.opaque.parameters"
    if parameters is None:
        return [*causes, required(where)]
    if len(json.dumps(parameters, separators=(",", ":"))) > limits.OPAQUE_PARAMETERS_MAX:
        return [*causes, too_long(where, limits.OPAQUE_PARAMETERS_MAX)]
    if not isinstance(parameters, Mapping):
        return [*causes, invalid(where, "<value omitted>", "must be a valid JSON object")]
    return causes


def claim_spec_causes(spec: Mapping[str, Any], path: str) -> list[Cause]:
    """`validateResourceClaimSpec` for a new claim or template."""
    devices, at = as_map(spec.get("devices")), f"{path}.devices"
    names = request_names(devices)
    causes = each_unique(devices.get("requests"), limits.REQUESTS_MAX, f"{at}.requests", _request, by_name)
    causes += each(
        devices.get("constraints"),
        limits.CONSTRAINTS_MAX,
        f"{at}.constraints",
        lambda c, p: _constraint(c, p, names),
    )

    def config(value: object, where: str) -> list[Cause]:
        refs = each_unique(
            as_map(value).get("requests"),
            limits.REQUESTS_MAX,
            f"{where}.requests",
            lambda ref, p: request_ref_causes(ref, p, names),
            itself,
        )
        return refs + opaque_config_causes(value, where)

    return causes + each(devices.get("config"), limits.CONFIG_MAX, f"{at}.config", config)


def device_class_causes(spec: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[Cause]:
    """`validateDeviceClassSpec`; selectors equal to the stored ones count as stored."""
    stored = old is not None and old.get("selectors") == spec.get("selectors")
    causes = selector_causes(spec.get("selectors"), "spec.selectors", stored)
    causes += each(spec.get("config"), limits.CONFIG_MAX, "spec.config", opaque_config_causes)
    name = spec.get("extendedResourceName")
    if name is not None and not is_extended_resource(as_str(name)):
        causes.append(
            invalid("spec.extendedResourceName", as_str(name), "must be a valid extended resource name")
        )
    return causes
