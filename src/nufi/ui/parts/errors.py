"""The one place a failed action becomes what the person reads: a headline in their language, the
service's own words, and the field each message names (so a form shows it beside that input).

The services raise domain errors (`nufi.errors`), each a message code and its params, worded here
from the reader's catalog; a request model a page builds raises pydantic's ValidationError, worded
the same way (`nufi.messages.validation`); anything else is unexpected, logged with its stack and
never shown. The workload
pages and the device list word their headlines each for their own readers (`Area`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from nufi.errors import Conflict, DependencyUnavailable, Forbidden, NotFound, NufiError, ValidationFailed
from nufi.logging import get_logger
from nufi.messages.validation import validation_message
from nufi.ui.i18n import Translator

_log = get_logger("nufi.ui.errors")

Area = Literal["workloads", "devices"]


@dataclass(frozen=True)
class Told:
    """A failed action as the person is told of it."""

    headline: str
    # What the service said, in the reader's language; empty for an unexpected error.
    detail: str = ""
    # Each message with the field it names (None: the form as a whole).
    fields: tuple[tuple[str | None, str], ...] = ()
    unexpected: bool = False

    @property
    def line(self) -> str:
        """All of it on one line (a list that cannot be read, a row's action)."""
        return self.headline if self.unexpected else f"{self.headline} {self.detail}"


def field_of(exc: NufiError) -> str | None:
    """The field a domain error names (`field` of ValidationFailed, or in its extra fields)."""
    if isinstance(exc, ValidationFailed):
        return exc.field
    named = exc.extra.get("field")
    return named if isinstance(named, str) else None


def told(t: Translator, exc: Exception, area: Area = "workloads", *, form: bool = False) -> Told:
    """What the person is told of `exc`. Call it where the error is caught: an unexpected one is
    logged with its stack. With `form`, a ValidationError is the form's own request model refusing
    what was typed (elsewhere it is unexpected: the services raise ValidationFailed)."""
    if isinstance(exc, NufiError):
        headline = _headline(t, exc, area)
        said = exc.text(t.language)
        return Told(headline, said, ((field_of(exc), said),))
    if form and isinstance(exc, ValidationError):
        fields = tuple(
            (_where(error.get("loc")), validation_message(error).text(t.language)) for error in exc.errors()
        )
        return Told(_invalid(t, area), fields[0][1] if fields else "", fields)
    _log.exception("a dashboard action failed", error=str(exc))
    unexpected = t("devices.error.unexpected") if area == "devices" else t("workloads.error.unexpected")
    return Told(unexpected, unexpected=True)


def _where(loc: object) -> str | None:
    return (".".join(str(part) for part in loc) or None) if isinstance(loc, tuple) else None


def _invalid(t: Translator, area: Area) -> str:
    return t("devices.error.invalid") if area == "devices" else t("workloads.error.invalid")


# Per area, the headline of each kind of domain error, the first that fits in this order; the last
# says the action failed otherwise.
_HEADLINES: dict[Area, tuple[tuple[type[NufiError], str], ...]] = {
    "workloads": (
        (ValidationFailed, "workloads.error.invalid"),
        (Conflict, "workloads.error.conflict"),
        (NotFound, "workloads.error.not_found"),
        (Forbidden, "workloads.error.forbidden"),
        (NufiError, "workloads.error.failed"),
    ),
    "devices": (
        (NotFound, "devices.error.not_found"),
        (Conflict, "devices.error.conflict"),
        (ValidationFailed, "devices.error.invalid"),
        (DependencyUnavailable, "devices.error.unavailable"),
        (Forbidden, "devices.error.forbidden"),
        (NufiError, "devices.error.unexpected"),
    ),
}


def _headline(t: Translator, exc: NufiError, area: Area) -> str:
    return t(next(key for kind, key in _HEADLINES[area] if isinstance(exc, kind)))
