"""A device type as data: the models behind the API shape, with validation that names the field.

Two layers of models:
- the *drafts* (`LabelsDraft`, `MemoryDraft`, `MetricsDraft`) check structure only: types, required
  fields, the memory mode. The registration wizard's checks take drafts, so a bad label name or an
  unparsable expression comes back as a per-metric result instead of a request-level rejection;
- `Labels`, `Memory`, `Metrics` and the device-type documents add the semantic rules (Prometheus label
  names, PromQL that parses to something that can be a vector, the Kubernetes resource-key rules), so
  nothing invalid can be saved.

Every expression, draft or not, is held to the parser's bounds (length, nesting depth) before it is
parsed: FastAPI validates request bodies on the event loop, so an unbounded parse there would stall
or crash the server. Parses are cached by text, so validating a stored type again is cheap.

The JSON Schema of each field states the rule its validator enforces (`pattern`, `maxLength`), while
the validator keeps the message that says how to fix the value; `devices/validation_errors.py` turns
a rejected document into those messages, each with the dotted path of its field.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from nufi.devices.resource_key_words import rule_message
from nufi.devices.units import MemoryUnit
from nufi.messages import Message
from nufi.messages.validation import refusal

# Importable from here too, where the dashboard's wizard takes it from.
from nufi.models.promql import (
    MAX_EXPRESSION_CHARS,
    ExpressionError,
    ExpressionTooLarge,
    expression_size_problem,
    instant_vector_problem,
    label_name_problem,
)
from nufi.models.resource_keys import NAME_MAX_LENGTH, PREFIX_MAX_LENGTH, resource_key_violations

DeviceKind = Literal["official", "custom"]
MemoryMode = Literal["used_total", "used_free"]
# The names under which each reported quantity appears in readings and check results.
MetricKey = Literal[
    "utilization", "memory_used", "memory_total", "memory_free", "temperature", "power", "health"
]

GENERIC_FETCHER = "generic"
_SLUG_SYNTAX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_FETCHER_SYNTAX = r"[a-z0-9]([-a-z0-9_.]*[a-z0-9])?"
_SLUG = re.compile(_SLUG_SYNTAX)
_FETCHER_NAME = re.compile(_FETCHER_SYNTAX)
_SLUG_MAX = 63
_TEXT_MAX = 100
# A revision is stored as a 32-bit signed integer.
REVISION_MAX = 2**31 - 1

# What the JSON Schema says of each field (JSON Schema patterns are not anchored, hence ^...$). A label
# name is Prometheus' syntax without the reserved `__` start; a resource key's pattern is its syntax
# (the reserved `kubernetes.io` domain and `requests.` prefix are refused by the validator alone).
LABEL_NAME_PATTERN = r"^(?:[a-zA-Z][a-zA-Z0-9_]*|_(?:[a-zA-Z0-9][a-zA-Z0-9_]*)?)$"
SLUG_PATTERN = f"^{_SLUG_SYNTAX}$"
FETCHER_PATTERN = f"^{_FETCHER_SYNTAX}$"
# A DNS subdomain (dot-separated labels, each with the syntax of an id), `/`, and the name part.
RESOURCE_KEY_PATTERN = rf"^{_SLUG_SYNTAX}(\.{_SLUG_SYNTAX})*/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
RESOURCE_KEY_MAX = PREFIX_MAX_LENGTH + 1 + NAME_MAX_LENGTH

DraftExpression = Annotated[str, Field(json_schema_extra={"maxLength": MAX_EXPRESSION_CHARS})]
Expression = Annotated[str, Field(json_schema_extra={"minLength": 1, "maxLength": MAX_EXPRESSION_CHARS})]
LabelName = Annotated[str, Field(json_schema_extra={"pattern": LABEL_NAME_PATTERN})]
DisplayText = Annotated[str, Field(json_schema_extra={"minLength": 1, "maxLength": _TEXT_MAX})]
ResourceKey = Annotated[
    str, Field(json_schema_extra={"pattern": RESOURCE_KEY_PATTERN, "maxLength": RESOURCE_KEY_MAX})
]
FetcherName = Annotated[str, Field(json_schema_extra={"pattern": FETCHER_PATTERN, "maxLength": _SLUG_MAX})]
Slug = Annotated[str, Field(json_schema_extra={"pattern": SLUG_PATTERN, "maxLength": _SLUG_MAX})]
_API_ORDER = ("id", "name", "vendor", "kind", "enabled", "resource_key", "labels", "metrics", "thermal")


class _Model(BaseModel):
    # Frozen: presets and cached types are shared between requests; change one with model_copy(update=...).
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


# The error's type is the catalog code and its context the params, so every face words it from the
# catalog (`nufi.messages.validation`); the English rendering is pydantic's own `msg`.
_invalid = refusal


# --- labels -------------------------------------------------------------------------------------------


class LabelsDraft(_Model):
    """Which Prometheus label names the node, the device on it, and the workload using it."""

    node: str
    device: str
    pod: str | None = None
    namespace: str | None = None


class Labels(LabelsDraft):
    node: LabelName
    device: LabelName
    pod: LabelName | None = None
    namespace: LabelName | None = None

    @field_validator("node", "device", "pod", "namespace")
    @classmethod
    def _prometheus_label(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = label_name_problem(value)
        if problem is not None:
            raise _invalid(problem)
        return value

    @model_validator(mode="after")
    def _node_and_device_differ(self) -> Labels:
        if self.node == self.device:
            raise _invalid(Message("device_type.labels_same", {"name": self.node}))
        return self


# --- metrics ------------------------------------------------------------------------------------------


class MemoryDraft(_Model):
    """Memory as two expressions: used and total, or used and free, in one unit."""

    mode: MemoryMode = "used_total"
    used: DraftExpression
    # Only the field of the mode is set (see below), and the other is left out of the body.
    total: DraftExpression | None = Field(default=None, exclude_if=lambda value: value is None)
    free: DraftExpression | None = Field(default=None, exclude_if=lambda value: value is None)
    unit: MemoryUnit = MemoryUnit.BYTES

    @field_validator("used", "total", "free")
    @classmethod
    def _within_bounds(cls, value: str | None) -> str | None:
        return _bounded_expression(value)

    @model_validator(mode="after")
    def _fields_of_mode(self) -> MemoryDraft:
        needed, other = ("total", "free") if self.mode == "used_total" else ("free", "total")
        if getattr(self, needed) is None:
            raise _invalid(Message(f"device_type.memory_{needed}_required", {"mode": self.mode}))
        if getattr(self, other) is not None:
            raise _invalid(Message(f"device_type.memory_{other}_unused", {"mode": self.mode}))
        return self

    @property
    def second_key(self) -> MetricKey:
        """`memory_total` or `memory_free`, whichever the mode reports."""
        return "memory_total" if self.mode == "used_total" else "memory_free"

    @property
    def second(self) -> str:
        value = self.total if self.mode == "used_total" else self.free
        assert value is not None  # guaranteed by _fields_of_mode
        return value


class MetricsDraft(_Model):
    """PromQL expressions; utilization is required, None means the device does not report it.

    `health` gives one series per device whose value is 1 for healthy and 0 for unhealthy; a preset
    converts its vendor's convention (e.g. Rebellions' `HEALTH == bool 0`, where 0 means healthy). It
    is left out of the body when not set, so types written before it existed read back unchanged."""

    utilization: DraftExpression
    memory: MemoryDraft | None = None
    temperature: DraftExpression | None = None
    power: DraftExpression | None = None
    health: DraftExpression | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("utilization", "temperature", "power", "health")
    @classmethod
    def _within_bounds(cls, value: str | None) -> str | None:
        return _bounded_expression(value)

    def queries(self) -> dict[MetricKey, str]:
        """Each reported quantity with its expression, in a stable order."""
        found: dict[MetricKey, str] = {"utilization": self.utilization}
        if self.memory is not None:
            found["memory_used"] = self.memory.used
            found[self.memory.second_key] = self.memory.second
        if self.temperature is not None:
            found["temperature"] = self.temperature
        if self.power is not None:
            found["power"] = self.power
        if self.health is not None:
            found["health"] = self.health
        return found


def _bounded_expression(value: str | None) -> str | None:
    # Before any parse: the length first (cheap at any size), then one linear scan for the depth.
    if value is None:
        return None
    problem = expression_size_problem(value)
    if problem is not None:
        raise _invalid(problem)
    return value


def _checked_expression(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        problem = instant_vector_problem(value)
    except ExpressionTooLarge as exc:
        raise _invalid(exc.problem) from None
    except ExpressionError as exc:
        raise _invalid(Message("device_type.promql_unparsable", {"problem": exc.problem})) from None
    if problem is not None:
        raise _invalid(problem)
    return value


class Memory(MemoryDraft):
    used: Expression
    total: Expression | None = Field(default=None, exclude_if=lambda value: value is None)
    free: Expression | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("used", "total", "free")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        return _checked_expression(value)


class Metrics(MetricsDraft):
    utilization: Expression
    memory: Memory | None = None
    temperature: Expression | None = None
    power: Expression | None = None
    health: Expression | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("utilization", "temperature", "power", "health")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        return _checked_expression(value)


# --- thermal policy defaults --------------------------------------------------------------------------


class ThermalDefaults(_Model):
    """Where temperature-based load balancing starts from for this type: stop sending traffic to a node
    once a device stays above `threshold_celsius` for `sustain_seconds`, and resume once it is back at or
    below `recover_celsius` (the gap keeps a device hovering at the threshold from flapping)."""

    # Strict: numbers are JSON numbers, never strings or booleans.
    threshold_celsius: float = Field(default=85.0, ge=-40.0, le=150.0, strict=True)
    recover_celsius: float = Field(default=75.0, ge=-40.0, le=150.0, strict=True)
    sustain_seconds: int = Field(default=30, ge=0, le=3600, strict=True)

    @model_validator(mode="after")
    def _hysteresis(self) -> ThermalDefaults:
        if self.recover_celsius >= self.threshold_celsius:
            raise _invalid(
                Message(
                    "device_type.thermal_hysteresis",
                    {"recover": self.recover_celsius, "threshold": self.threshold_celsius},
                )
            )
        return self


# --- device types -------------------------------------------------------------------------------------


class DeviceTypeFields(_Model):
    """What an admin writes about a device type (everything but its identity)."""

    name: DisplayText
    vendor: DisplayText
    enabled: bool = Field(default=True, strict=True)
    resource_key: ResourceKey
    labels: Labels
    metrics: Metrics
    thermal: ThermalDefaults | None = None
    fetcher: FetcherName = GENERIC_FETCHER

    @field_validator("name", "vendor")
    @classmethod
    def _display_text(cls, value: str, info: ValidationInfo) -> str:
        if not value:
            raise _invalid(Message("device_type.text_empty", {"name": info.field_name}))
        if len(value) > _TEXT_MAX:
            raise _invalid(
                Message(
                    "device_type.text_too_long",
                    {"name": info.field_name, "max": _TEXT_MAX, "length": len(value)},
                )
            )
        return value

    @field_validator("resource_key")
    @classmethod
    def _extended_resource(cls, value: str) -> str:
        problems = [rule_message(value, problem.rule) for problem in resource_key_violations(value)]
        if problems:
            raise _invalid(Message("resource_key.problems", {"problems": problems}))
        return value

    @field_validator("fetcher")
    @classmethod
    def _fetcher_name(cls, value: str) -> str:
        if not is_fetcher_name(value):
            raise _invalid(
                Message("device_type.fetcher_name", {"fetcher": value, "example": GENERIC_FETCHER})
            )
        return value


def is_fetcher_name(name: str) -> bool:
    return len(name) <= _SLUG_MAX and _FETCHER_NAME.fullmatch(name) is not None


def _slug(value: str) -> str:
    if len(value) > _SLUG_MAX or _SLUG.fullmatch(value) is None:
        raise _invalid(Message("device_type.id_syntax", {"id": value}))
    return value


class DeviceTypeCreate(DeviceTypeFields):
    """A new custom device type, as the admin submits it."""

    id: Slug

    @field_validator("id")
    @classmethod
    def _id_slug(cls, value: str) -> str:
        return _slug(value)


class DeviceTypeUpdate(DeviceTypeFields):
    """A whole replacement of a device type; `revision` is the one it replaces (a stale one conflicts)."""

    # Strict: `"1"`, `1.0` and `true` are not revisions.
    revision: int = Field(ge=1, le=REVISION_MAX, strict=True)


class DeviceType(DeviceTypeFields):
    """A device type as NuFi serves it."""

    id: Slug
    kind: DeviceKind
    revision: int = Field(default=1, ge=1, le=REVISION_MAX)

    @field_validator("id")
    @classmethod
    def _id_slug(cls, value: str) -> str:
        return _slug(value)

    @model_serializer(mode="wrap")
    def _api_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Identity first, as the API documents it; fields are declared base-class first.
        data: dict[str, Any] = handler(self)
        return {key: data[key] for key in _API_ORDER if key in data} | data
