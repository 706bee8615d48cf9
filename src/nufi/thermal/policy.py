"""A device type's temperature policy, and the override one deployment may make of it."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nufi.devices.spec import ThermalDefaults
from nufi.errors import ValidationFailed
from nufi.messages import Message
from nufi.messages.validation import refusal
from nufi.models.promql import (
    MAX_EXPRESSION_CHARS,
    ExpressionError,
    ExpressionTooLarge,
    instant_vector_problem,
)

Scope = Literal["node", "device"]
MIN_TRIP, MAX_CELSIUS, MIN_RESUME = 30.0, 150.0, 0.0
MAX_HOLD_SECONDS = 3600
# An own condition's trip and resume values: wide enough for counters and bytes (a petabyte is 1e15),
# and every float within it is exact to far below any reading's resolution.
MAX_CUSTOM_VALUE = 1e15

Trip = Field(ge=MIN_TRIP, le=MAX_CELSIUS, description="Cut traffic at or above this (°C).")
Resume = Field(ge=MIN_RESUME, le=MAX_CELSIUS, description="Restore traffic at or below this (°C).")


def _resume_below_trip(resume: float, trip: float) -> Message | None:
    if resume < trip:
        return None
    return Message("thermal_policy.resume_not_below_trip", {"resume": resume, "trip": trip})


class UnhealthyCondition(BaseModel):
    """Traffic leaves a device (or node) whose health expression reads unhealthy for `trip_hold_seconds`,
    and comes back once it has read healthy for `resume_hold_seconds`. Off unless enabled, and only for
    types that map a health expression."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    enabled: bool = False
    trip_hold_seconds: int = Field(default=0, ge=0, le=MAX_HOLD_SECONDS)
    resume_hold_seconds: int = Field(default=30, ge=0, le=MAX_HOLD_SECONDS)


# The name of a condition its admin did not name: worded in the reader's language where it is shown.
DEFAULT_CONDITION_NAME = "custom"


class CustomCondition(BaseModel):
    """Traffic leaves a device (or node) where an admin's expression reads at or above `trip_at` for
    `trip_hold_seconds`, and comes back once it reads at or below `resume_at` for `resume_hold_seconds`
    (e.g. uncorrectable ECC errors, a vendor's throttle flag). The expression gives one series per
    device with the type's node and device labels; it is checked live against Prometheus when saved."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    enabled: bool = False
    # What the condition is called where people read why traffic was cut.
    name: str = Field(default=DEFAULT_CONDITION_NAME, min_length=1, max_length=60)
    expression: str | None = Field(default=None, min_length=1, max_length=MAX_EXPRESSION_CHARS)
    trip_at: float = Field(default=1.0, ge=-MAX_CUSTOM_VALUE, le=MAX_CUSTOM_VALUE)
    resume_at: float = Field(default=0.0, ge=-MAX_CUSTOM_VALUE, le=MAX_CUSTOM_VALUE)
    trip_hold_seconds: int = Field(default=10, ge=0, le=MAX_HOLD_SECONDS)
    resume_hold_seconds: int = Field(default=30, ge=0, le=MAX_HOLD_SECONDS)

    @property
    def shown_name(self) -> str | Message:
        """The name as people read it: the admin's, or "own condition" in the reader's language."""
        return Message("thermal.condition.unnamed") if self.name == DEFAULT_CONDITION_NAME else self.name

    @model_validator(mode="after")
    def _usable(self) -> CustomCondition:
        if self.enabled and self.expression is None:
            raise refusal(Message("thermal_policy.custom_expression_required"))
        if self.resume_at >= self.trip_at:
            raise refusal(
                Message(
                    "thermal_policy.custom_resume_not_below_trip",
                    {"resume": self.resume_at, "trip": self.trip_at},
                )
            )
        if self.expression is not None:
            problem = _expression_problem(self.expression)
            if problem is not None:
                raise refusal(problem)
        return self


def _expression_problem(expression: str) -> Message | None:
    try:
        return instant_vector_problem(expression)
    except ExpressionTooLarge as exc:
        return exc.problem
    except ExpressionError as exc:
        return Message("device_type.promql_unparsable", {"problem": exc.problem})


class Breaker(BaseModel):
    """How much protection may cut at once, whatever the conditions say: at most this share of the
    type's nodes, and of each deployment's replicas (always at least one of each). Beyond it NuFi cuts
    no more and says so; it resumes by itself once fewer are affected."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    max_node_share: float = Field(default=0.3, gt=0, le=1)
    max_replica_share: float = Field(default=0.5, gt=0, le=1)

    def allowed(self, share: float, total: int) -> int:
        """How many of `total` may be cut at once: the share, rounded down, and never below one."""
        return max(1, math.floor(share * total + 1e-9))


class ThermalPolicy(BaseModel):
    # strict: temperatures and holds are JSON numbers and switches JSON booleans, never strings.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    enabled: bool = False
    trip_celsius: float = Field(default=85.0, ge=MIN_TRIP, le=MAX_CELSIUS)
    resume_celsius: float = Field(default=75.0, ge=MIN_RESUME, le=MAX_CELSIUS)
    trip_hold_seconds: int = Field(default=10, ge=0, le=MAX_HOLD_SECONDS)
    resume_hold_seconds: int = Field(default=30, ge=0, le=MAX_HOLD_SECONDS)
    scope: Scope = "node"
    allow_full_shutoff: bool = False
    taint_node: bool = False
    # What a deployment's override may do (PolicyOverride.refusal): switch protection off only when
    # allowed; raise the trip temperature at most to this (None: not above the policy's own trip).
    overrides_may_disable: bool = False
    override_max_trip_celsius: float | None = Field(default=None, ge=MIN_TRIP, le=MAX_CELSIUS)
    # Beyond temperature: unhealthy devices leave traffic too; and how much may be cut at once.
    unhealthy: UnhealthyCondition = UnhealthyCondition()
    custom: CustomCondition = CustomCondition()
    breaker: Breaker = Breaker()

    @model_validator(mode="after")
    def _hysteresis(self) -> ThermalPolicy:
        problem = _resume_below_trip(self.resume_celsius, self.trip_celsius)
        if problem is not None:
            # The location pydantic gives a model validator's error is the model; the message names the
            # field. Its type is the catalog code, so the API and the dashboard word it from the catalog.
            raise refusal(problem)
        return self


class PolicyOverride(BaseModel):
    """What one deployment changes of its type's policy; a field left out (or null) keeps the type's."""

    # strict: temperatures and holds are JSON numbers and switches JSON booleans, never strings.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    enabled: bool | None = None
    trip_celsius: float | None = Field(default=None, ge=MIN_TRIP, le=MAX_CELSIUS)
    resume_celsius: float | None = Field(default=None, ge=MIN_RESUME, le=MAX_CELSIUS)

    def applied_to(self, policy: ThermalPolicy) -> ThermalPolicy:
        """The type's `policy` with this override applied; ValidationFailed (refusal) when the two
        do not make a valid policy or the override goes beyond what the policy lets overrides do."""
        refused = self.refusal(policy)
        if refused is not None:
            raise refused
        trip = policy.trip_celsius if self.trip_celsius is None else self.trip_celsius
        resume = policy.resume_celsius if self.resume_celsius is None else self.resume_celsius
        enabled = policy.enabled if self.enabled is None else self.enabled
        return policy.model_copy(update={"enabled": enabled, "trip_celsius": trip, "resume_celsius": resume})

    def refusal(self, policy: ThermalPolicy) -> ValidationFailed | None:
        """Why this override cannot apply to the type's `policy`, naming the field; None when it can.

        The policy's bounds bind every caller, admins included: an admin changes the bounds in the
        policy itself, where the change is audited as one. An override stored before the bounds were
        tightened is not honoured (thermal control applies the type's policy) until it is changed.
        """
        if self.enabled is False and policy.enabled and not policy.overrides_may_disable:
            return ValidationFailed(
                code="thermal_override.disable_not_allowed",
                field="enabled",
                bound="overrides_may_disable",
            )
        # Unbounded by an admin, an override may lower the trip (more protection) but not raise it:
        # running hotter than the type's policy is the admin's call, made once in the policy.
        limit = policy.override_max_trip_celsius
        if self.trip_celsius is not None and limit is not None and self.trip_celsius > limit:
            return ValidationFailed(
                code="thermal_override.trip_above_limit",
                params={"trip_celsius": self.trip_celsius},
                field="trip_celsius",
                bound="override_max_trip_celsius",
                limit=limit,
            )
        if self.trip_celsius is not None and limit is None and self.trip_celsius > policy.trip_celsius:
            return ValidationFailed(
                code="thermal_override.trip_above_policy",
                params={"trip_celsius": self.trip_celsius},
                field="trip_celsius",
                bound="override_max_trip_celsius",
                limit=policy.trip_celsius,
            )
        trip = policy.trip_celsius if self.trip_celsius is None else self.trip_celsius
        resume = policy.resume_celsius if self.resume_celsius is None else self.resume_celsius
        # A resume far below the trip keeps traffic cut long after the device has cooled (at 0 °C,
        # until the override goes): an override keeps at most the type's own gap between the two.
        band = policy.trip_celsius - policy.resume_celsius
        if self.resume_celsius is not None and resume < trip - band:
            return ValidationFailed(
                code="thermal_override.resume_too_low",
                params={"resume_celsius": resume, "trip": trip, "band": band, "least": trip - band},
                field="resume_celsius",
                bound="trip_celsius - resume_celsius of the type's policy",
            )
        problem = _resume_below_trip(resume, trip)
        if problem is not None:
            field = "resume_celsius" if self.resume_celsius is not None else "trip_celsius"
            return ValidationFailed(
                code="thermal_override.resume_not_below_trip", params={"problem": problem}, field=field
            )
        return None


def default_policy(defaults: ThermalDefaults | None) -> ThermalPolicy:
    """A type's policy before an admin sets one: disabled, its own thermal defaults' temperatures."""
    if defaults is None:
        return ThermalPolicy()
    return ThermalPolicy(trip_celsius=defaults.threshold_celsius, resume_celsius=defaults.recover_celsius)
