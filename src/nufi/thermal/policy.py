"""A thermal policy: when a deployment's pods stop and resume taking traffic, with field-named errors."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from nufi.devices.spec import ThermalDefaults, field_errors
from nufi.errors import ValidationFailed

Scope = Literal["node", "device"]

TRIP_MIN, TRIP_MAX = 30.0, 150.0
RESUME_MIN, RESUME_MAX = 0.0, 150.0
HOLD_MAX = 3600


def _invalid(kind: str, message: str) -> PydanticCustomError:
    # A custom error keeps the message as written (a plain ValueError gets a "Value error, " prefix).
    return PydanticCustomError(kind, "{detail}", {"detail": message})


def _resume_below(resume: float | None, trip: object) -> None:
    # Checked on resume_celsius itself so the error's location (and the API's 422) names that field.
    if resume is not None and isinstance(trip, float) and resume >= trip:
        raise _invalid(
            "thermal_hysteresis",
            f"resume_celsius ({resume:g}) must be below trip_celsius ({trip:g}), e.g. 10 degrees lower",
        )


class ThermalPolicy(BaseModel):
    """Cut a pod's traffic once its node (or device) stays at/above `trip_celsius` for `trip_hold_seconds`;
    restore it once back at/below `resume_celsius` for `resume_hold_seconds`."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    enabled: bool = False
    trip_celsius: float = Field(default=85.0, ge=TRIP_MIN, le=TRIP_MAX)
    resume_celsius: float = Field(default=75.0, ge=RESUME_MIN, le=RESUME_MAX)
    trip_hold_seconds: int = Field(default=10, ge=0, le=HOLD_MAX)
    resume_hold_seconds: int = Field(default=30, ge=0, le=HOLD_MAX)
    scope: Scope = "node"
    allow_full_shutoff: bool = False
    taint_node: bool = False

    @field_validator("resume_celsius")
    @classmethod
    def _hysteresis(cls, value: float, info: ValidationInfo) -> float:
        _resume_below(value, info.data.get("trip_celsius"))
        return value


class PolicyOverride(BaseModel):
    """A deployment's own changes to its type's policy; None keeps the policy's value."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    enabled: bool | None = None
    trip_celsius: float | None = Field(default=None, ge=TRIP_MIN, le=TRIP_MAX)
    resume_celsius: float | None = Field(default=None, ge=RESUME_MIN, le=RESUME_MAX)

    @field_validator("resume_celsius")
    @classmethod
    def _hysteresis(cls, value: float | None, info: ValidationInfo) -> float | None:
        _resume_below(value, info.data.get("trip_celsius"))
        return value

    def applied_to(self, policy: ThermalPolicy) -> ThermalPolicy:
        """The policy with this override's values; ValidationFailed when the merge breaks resume < trip."""
        changes: dict[str, Any] = self.model_dump(exclude_none=True)
        try:
            return ThermalPolicy.model_validate(policy.model_dump() | changes)
        except ValidationError as exc:
            # Name what the override set: that is the value to change.
            field = "resume_celsius" if self.resume_celsius is not None else "trip_celsius"
            message = field_errors(exc)[0].message
            raise ValidationFailed(f"the override does not fit the policy: {message}", field=field) from None


def default_policy(defaults: ThermalDefaults | None) -> ThermalPolicy:
    """The policy a device type's thermal defaults give (disabled until someone enables it).

    The defaults allow a wider range than a policy; values outside it are clamped, which keeps
    resume below trip (recover < threshold <= 150 holds for every valid ThermalDefaults)."""
    if defaults is None:
        return ThermalPolicy()
    trip = min(max(defaults.threshold_celsius, TRIP_MIN), TRIP_MAX)
    resume = min(max(defaults.recover_celsius, RESUME_MIN), RESUME_MAX)
    return ThermalPolicy(trip_celsius=trip, resume_celsius=resume)
