"""One device type's temperature policy on Admin → Thermal: its fields, Save, and a dry run of the
edited policy over the last day's history."""

from __future__ import annotations

from nicegui import ui
from pydantic import ValidationError

from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.messages.validation import validation_message
from nufi.thermal.effective import PolicyEntry
from nufi.thermal.policy import (
    DEFAULT_CONDITION_NAME,
    Breaker,
    CustomCondition,
    ThermalPolicy,
    UnhealthyCondition,
)
from nufi.thermal.protection.dry_run import CUSTOM_EXPRESSION_FIELD
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.thermal_chips import condition_name
from nufi.ui.parts.thermal_dry_run import replayed
from nufi.ui.wizard.form import edit_url


class PolicyCard:
    """The card of one type's policy; what it proposes is read from its fields when asked. `show`
    brings it up to date with the stored policy, leaving fields the admin has changed and not saved."""

    def __init__(self, principal: Principal, t: Translator, entry: PolicyEntry, name: str) -> None:
        self.principal = principal
        self.t = t
        self.device_type = entry.device_type
        self.name = name
        self.shown = entry
        self.root = ui.card().classes("w-full").props(f'data-testid="thermal-policy-{entry.device_type}"')
        with self.root:
            self.heading = (
                ui.label(self._heading(entry))
                .classes("text-lg font-medium")
                .mark(f"thermal-source-{entry.device_type}")
            )
            # Said when another admin saved while this card was being edited.
            self.note = ui.label("").classes("text-amber-700").mark(f"thermal-note-{entry.device_type}")
            # Said while the stored policy no longer validates and the type's default applies.
            self.unreadable = (
                ui.label(self._unreadable(entry))
                .classes("text-red-700")
                .mark(f"thermal-unreadable-{entry.device_type}")
            )
            # Said while a condition switched on can never trip: the type maps nothing for it to read.
            self.warnings = ui.column().classes("gap-1").mark(f"thermal-warnings-{entry.device_type}")
            self.warnings.props(f'data-testid="thermal-warnings-{entry.device_type}"')
            self._warn(entry)
            self._fields(entry.policy)
            self.error = (
                ui.label("")
                .classes("text-red-700")
                .props(f'data-testid="thermal-error-{entry.device_type}"')
                .mark(f"thermal-error-{entry.device_type}")
            )
            self.result = ui.column().classes("w-full")
            with ui.row().classes("gap-2"):
                ui.button(t("thermal.save"), icon="save", on_click=self.save).props("no-caps").mark(
                    "thermal-save", f"thermal-save-{entry.device_type}"
                )
                ui.button(t("thermal.dry_run"), icon="history", on_click=self.dry_run).props(
                    "no-caps outline"
                )

    def _fields(self, policy: ThermalPolicy) -> None:
        t = self.t
        with ui.row().classes("items-end gap-4 flex-wrap"):
            self.enabled = ui.switch(t("thermal.field.enabled"), value=policy.enabled)
            self.trip = ui.number(
                t("thermal.field.trip_celsius"), value=policy.trip_celsius, suffix="°C"
            ).mark(f"thermal-trip-{self.device_type}")
            self.resume = ui.number(
                t("thermal.field.resume_celsius"), value=policy.resume_celsius, suffix="°C"
            )
            self.trip_hold = self._seconds("thermal.field.trip_hold_seconds", policy.trip_hold_seconds)
            self.resume_hold = self._seconds("thermal.field.resume_hold_seconds", policy.resume_hold_seconds)
            self.scope = ui.select(
                {"node": t("thermal.scope.node"), "device": t("thermal.scope.device")},
                value=policy.scope,
                label=t("thermal.field.scope"),
            ).classes("min-w-[10rem]")
            self.shutoff = ui.checkbox(t("thermal.field.allow_full_shutoff"), value=policy.allow_full_shutoff)
            self.taint = ui.checkbox(t("thermal.field.taint_node"), value=policy.taint_node)
        # The rest folds away while at its defaults, so four types' cards fit a screen or two; a card
        # whose advanced settings were changed opens with them shown.
        advanced = ui.expansion(t("thermal.advanced"), icon="tune", value=_advanced_changed(policy))
        advanced.classes("w-full").props(f'dense data-testid="thermal-advanced-{self.device_type}"')
        advanced.mark(f"thermal-advanced-{self.device_type}")
        with advanced:
            self._advanced_fields(policy)

    def _advanced_fields(self, policy: ThermalPolicy) -> None:
        self._override_fields(policy)
        self._unhealthy_fields(policy.unhealthy)
        self._custom_fields(policy.custom)
        self._breaker_fields(policy.breaker)

    def _override_fields(self, policy: ThermalPolicy) -> None:
        """What one deployment's override may do (PolicyOverride.refusal)."""
        t = self.t
        with ui.row().classes("items-end gap-4 flex-wrap"):
            self.may_disable = ui.checkbox(
                t("thermal.field.overrides_may_disable"), value=policy.overrides_may_disable
            ).props(f'data-testid="thermal-may-disable-{self.device_type}"')
            self.max_trip = (
                ui.number(
                    t("thermal.field.override_max_trip_celsius"),
                    value=policy.override_max_trip_celsius,
                    suffix="°C",
                    placeholder=t("thermal.field.override_max_trip_hint"),
                )
                .classes("min-w-[16rem]")
                .props(f'stack-label data-testid="thermal-max-trip-{self.device_type}"')
            )

    def _unhealthy_fields(self, unhealthy: UnhealthyCondition) -> None:
        """Beyond temperature: devices the plugin reports unhealthy."""
        t = self.t
        with ui.row().classes("items-end gap-4 flex-wrap"):
            self.unhealthy = ui.switch(t("thermal.field.unhealthy"), value=unhealthy.enabled).props(
                f'data-testid="thermal-unhealthy-{self.device_type}"'
            )
            self.unhealthy_trip = self._seconds(
                "thermal.field.unhealthy_trip_hold", unhealthy.trip_hold_seconds
            )
            self.unhealthy_resume = self._seconds(
                "thermal.field.unhealthy_resume_hold", unhealthy.resume_hold_seconds
            )

    def _custom_fields(self, own: CustomCondition) -> None:
        """The policy's own condition: an expression of the admin's, checked live when saved."""
        t = self.t
        with ui.row().classes("items-end gap-4 flex-wrap"):
            self.custom = (
                ui.switch(t("thermal.field.custom"), value=own.enabled)
                .props(f'data-testid="thermal-custom-{self.device_type}"')
                .mark(f"thermal-custom-{self.device_type}")
            )
            # Left unnamed, the field is empty and shows what the condition is then called.
            self.custom_name = (
                ui.input(
                    t("thermal.field.custom_name"),
                    value=_typed_name(own),
                    placeholder=condition_name(t, CustomCondition()),
                )
                .classes("w-40")
                .props(f'stack-label data-testid="thermal-custom-name-{self.device_type}"')
                .mark(f"thermal-custom-name-{self.device_type}")
            )
            self.custom_expression = (
                ui.input(t("thermal.field.custom_expression"), value=own.expression or "")
                .classes("min-w-[24rem] font-mono")
                .props(f'data-testid="thermal-custom-expression-{self.device_type}"')
                .mark(f"thermal-custom-expression-{self.device_type}")
            )
            self.custom_trip = ui.number(t("thermal.field.custom_trip_at"), value=own.trip_at)
            self.custom_resume = ui.number(t("thermal.field.custom_resume_at"), value=own.resume_at)
            self.custom_trip_hold = self._seconds("thermal.field.trip_hold_seconds", own.trip_hold_seconds)
            self.custom_resume_hold = self._seconds(
                "thermal.field.resume_hold_seconds", own.resume_hold_seconds
            )
        # What is wrong with the own condition (its PromQL does not parse, or does not work against
        # Prometheus) is said right under its fields, not at the foot of the card.
        self.custom_error = (
            ui.label("")
            .classes("text-red-700")
            .props(f'data-testid="thermal-custom-error-{self.device_type}"')
            .mark(f"thermal-custom-error-{self.device_type}")
        )

    def _breaker_fields(self, breaker: Breaker) -> None:
        """The breaker's shares, shown in % and stored as fractions."""
        t = self.t
        with ui.row().classes("items-end gap-4 flex-wrap"):
            self.breaker_nodes = (
                ui.number(
                    t("thermal.field.breaker_nodes"),
                    value=_percent(breaker.max_node_share),
                    suffix="%",
                )
                .classes("min-w-[14rem]")
                .props(f'data-testid="thermal-breaker-nodes-{self.device_type}"')
            )
            self.breaker_replicas = ui.number(
                t("thermal.field.breaker_replicas"),
                value=_percent(breaker.max_replica_share),
                suffix="%",
            ).classes("min-w-[20rem]")

    def _seconds(self, key: str, value: float) -> ui.number:
        """A hold's field: a number of seconds."""
        return ui.number(self.t(key), value=value, suffix=self.t("thermal.unit.seconds"))

    def _heading(self, entry: PolicyEntry) -> str:
        return f"{self.name} · {self.t(f'thermal.source.{entry.source}')}"

    def _unreadable(self, entry: PolicyEntry) -> str:
        said = entry.unreadable
        return "" if said is None else self.t.message(said.code, said.params)

    def _warn(self, entry: PolicyEntry) -> None:
        """Each condition that can never trip, and a link to where its expression is mapped."""
        self.warnings.clear()
        with self.warnings:
            for warning in entry.warnings:
                with ui.row().classes("items-center gap-2"):
                    ui.label(self.t.message(warning.code, warning.params)).classes("text-amber-800")
                    ui.link(
                        self.t("thermal.warning.map", device_type=self.name),
                        edit_url(self.device_type, step=2),
                    )

    def show(self, entry: PolicyEntry) -> None:
        """Show the stored policy `entry`: its source always, its values unless the admin is editing
        them (fields that differ from what the card last showed). An entry older than the one shown
        (a refresh read before this card's own save answered) is not shown."""
        if (entry.revision or 0) < (self.shown.revision or 0):
            return
        self.heading.text = self._heading(entry)
        self.unreadable.text = self._unreadable(entry)
        if entry.warnings != self.shown.warnings:
            self._warn(entry)
        if entry.policy != self.shown.policy:
            if self.editing():
                self.note.text = self.t("thermal.changed_elsewhere", who=entry.updated_by or "—")
            else:
                self._set(entry.policy)
        self.shown = entry
        if not self.editing():
            self.note.text = ""

    def editing(self) -> bool:
        """The fields hold something other than the policy the card last showed."""
        try:
            return self._read() != self.shown.policy
        except (ValidationError, TypeError, ValueError):
            return True

    def _set(self, policy: ThermalPolicy) -> None:
        self.enabled.value = policy.enabled
        self.trip.value = policy.trip_celsius
        self.resume.value = policy.resume_celsius
        self.trip_hold.value = policy.trip_hold_seconds
        self.resume_hold.value = policy.resume_hold_seconds
        self.scope.value = policy.scope
        self.shutoff.value = policy.allow_full_shutoff
        self.taint.value = policy.taint_node
        self.may_disable.value = policy.overrides_may_disable
        self.max_trip.value = policy.override_max_trip_celsius
        self.unhealthy.value = policy.unhealthy.enabled
        self.unhealthy_trip.value = policy.unhealthy.trip_hold_seconds
        self.unhealthy_resume.value = policy.unhealthy.resume_hold_seconds
        own = policy.custom
        self.custom.value = own.enabled
        self.custom_name.value = _typed_name(own)
        self.custom_expression.value = own.expression or ""
        self.custom_trip.value = own.trip_at
        self.custom_resume.value = own.resume_at
        self.custom_trip_hold.value = own.trip_hold_seconds
        self.custom_resume_hold.value = own.resume_hold_seconds
        self.breaker_nodes.value = _percent(policy.breaker.max_node_share)
        self.breaker_replicas.value = _percent(policy.breaker.max_replica_share)

    def _read(self) -> ThermalPolicy:
        return ThermalPolicy(
            enabled=bool(self.enabled.value),
            trip_celsius=self.trip.value,
            resume_celsius=self.resume.value,
            trip_hold_seconds=int(self.trip_hold.value or 0),
            resume_hold_seconds=int(self.resume_hold.value or 0),
            scope=self.scope.value,
            allow_full_shutoff=bool(self.shutoff.value),
            taint_node=bool(self.taint.value),
            overrides_may_disable=bool(self.may_disable.value),
            override_max_trip_celsius=self.max_trip.value,
            unhealthy=UnhealthyCondition(
                enabled=bool(self.unhealthy.value),
                trip_hold_seconds=int(self.unhealthy_trip.value or 0),
                resume_hold_seconds=int(self.unhealthy_resume.value or 0),
            ),
            custom=self._read_custom(),
            breaker=Breaker(
                max_node_share=_share(self.breaker_nodes.value),
                max_replica_share=_share(self.breaker_replicas.value),
            ),
        )

    def _read_custom(self) -> CustomCondition:
        return CustomCondition(
            enabled=bool(self.custom.value),
            name=str(self.custom_name.value or "").strip() or DEFAULT_CONDITION_NAME,
            expression=str(self.custom_expression.value or "").strip() or None,
            trip_at=float(self.custom_trip.value or 0),
            resume_at=float(self.custom_resume.value or 0),
            trip_hold_seconds=int(self.custom_trip_hold.value or 0),
            resume_hold_seconds=int(self.custom_resume_hold.value or 0),
        )

    def proposed(self) -> ThermalPolicy | None:
        """The policy the fields hold; None, with the first problem said, when they make none: under
        the own condition's fields when it is theirs, else at the foot of the card."""
        self.error.text = self.custom_error.text = ""
        try:
            self._read_custom()
        except ValidationError as exc:
            said = validation_message(exc.errors()[0])
            self.custom_error.text = self.t.message(said.code, said.params)
            return None
        except (TypeError, ValueError) as exc:
            self.custom_error.text = str(exc)
            return None
        try:
            return self._read()
        except (ValidationError, TypeError, ValueError) as exc:
            self.error.text = first_error(exc, self.t)
            return None

    def _refused(self, exc: NufiError) -> None:
        """A refusal of the service, said beside the own condition when it names its PromQL."""
        said = exc.text(self.t.language)
        if getattr(exc, "field", None) == CUSTOM_EXPRESSION_FIELD:
            self.custom_error.text = said
        else:
            self.error.text = said

    async def save(self) -> None:
        policy = self.proposed()
        if policy is None:
            return
        try:
            saved = await context.services().thermal.put_policy(self.principal, self.device_type, policy)
        except NufiError as exc:
            self._refused(exc)
            return
        self.show(saved)
        self.note.text = ""
        ui.notify(self.t("thermal.saved", device_type=self.name), type="positive")

    async def dry_run(self) -> None:
        policy = self.proposed()
        if policy is None:
            return
        self.result.clear()
        try:
            ran = await context.services().thermal.dry_run(self.principal, self.device_type, policy)
        except NufiError as exc:
            self._refused(exc)
            return
        with self.result:
            replayed(self.t, ran, self.name)


def _percent(share: float) -> float:
    return round(share * 100, 2)


def _share(percent: float | None) -> float:
    # An empty field is no share at all, which the policy refuses naming the field.
    return 0.0 if percent is None else round(float(percent) / 100, 4)


def first_error(exc: Exception, t: Translator) -> str:
    """The first problem of the fields, worded from the catalog in the page's language."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        said = validation_message(first)
        told = t.message(said.code, said.params)
        return f"{where}: {told}" if where else told
    return str(exc)


def _typed_name(own: CustomCondition) -> str:
    return "" if own.name == DEFAULT_CONDITION_NAME else own.name


def _advanced_changed(policy: ThermalPolicy) -> bool:
    """Whether any setting in the folded part differs from a new policy's."""
    fresh = ThermalPolicy()
    folded = ("overrides_may_disable", "override_max_trip_celsius", "unhealthy", "custom", "breaker")
    return any(getattr(policy, name) != getattr(fresh, name) for name in folded)
