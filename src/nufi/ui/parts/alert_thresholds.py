"""One device type's alerts on Admin → Devices: the thresholds of each generated rule (switch,
threshold, `for:` duration), saved through the alerts service (audited, the rules written out at
once), and the rules as written, read-only.

Like the thermal policy card (`thermal_policy.PolicyCard`), what the fields propose is read into the
service's model when Save is pressed; what the model refuses is said in the reader's language, beside
the field it names as well as under the form.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui
from pydantic import ValidationError

from nufi.alerts.rules import RULE_LABEL, RuleGroup
from nufi.alerts.service import ThresholdsEntry
from nufi.alerts.thresholds import AlertThresholds, RuleName
from nufi.auth import Principal
from nufi.errors import NufiError
from nufi.messages.validation import validation_message
from nufi.ui import context
from nufi.ui.i18n import Translator
from nufi.ui.parts.thermal_policy import first_error
from nufi.ui.wizard.form import edit_url

# Each rule with its name's key, in the order the section lists them.
KINDS: dict[RuleName, str] = {
    "hot": "alerting.kind.hot",
    "memory": "alerting.kind.memory",
    "unhealthy": "alerting.kind.unhealthy",
    "exporter_down": "alerting.kind.exporter_down",
    "missing_device": "alerting.kind.missing_device",
    "breaker_held": "alerting.kind.breaker_held",
}
_SEVERITY = {"critical": "alerting.severity.critical", "warning": "alerting.severity.warning"}
# The number each rule has besides its duration (the field of AlertThresholds, its label key, unit).
_LEVEL: dict[str, tuple[str, str, str]] = {
    "hot": ("celsius", "alerting.field.celsius", "°C"),
    "memory": ("percent", "alerting.field.percent", "%"),
}


class ThresholdsCard:
    """The Alerts section of one type: the thresholds' fields with Save, and the generated rules."""

    def __init__(self, principal: Principal, t: Translator, entry: ThresholdsEntry, name: str) -> None:
        self.principal, self.t, self.name = principal, t, name
        self.device_type = entry.device_type
        self.switches: dict[str, ui.switch] = {}
        self.rows: dict[str, ui.row] = {}
        # "hot.celsius", "memory.for_seconds", ...: the field each validation error may name.
        self.fields: dict[str, ui.number] = {}
        kind = self.device_type
        with ui.card().classes("w-full").props(f'data-testid="alert-thresholds-{kind}"'):
            self.heading = ui.label("").classes("text-lg font-medium").mark(f"alert-source-{kind}")
            for rule, key in KINDS.items():
                self._rule_row(rule, key)
            self.error = ui.label("").classes("text-red-700").mark(f"alert-error-{kind}")
            self.error.props(f'data-testid="alert-error-{kind}"')
            ui.button(t("alerting.save"), icon="save", on_click=self.save).props("no-caps").mark(
                f"alert-save-{kind}"
            )
        ui.label(t("alerting.generated")).classes("text-lg font-medium mt-2")
        self.rules = ui.column().classes("w-full")
        self.show(entry)

    def _rule_row(self, rule: RuleName, key: str) -> None:
        t = self.t
        # Every row has the same three columns, so the fields line up under each other.
        with ui.row().classes("items-end gap-4 w-full no-wrap") as row:
            self.rows[rule] = row
            switch = ui.switch(t(key)).classes("w-48 shrink-0 font-medium")
            self.switches[rule] = switch.mark(f"alert-{rule}-enabled")
            if rule in _LEVEL:
                field, label, unit = _LEVEL[rule]
                number = ui.number(t(label), suffix=unit).classes("w-80 shrink-0").props("stack-label")
                self.fields[f"{rule}.{field}"] = number.mark(f"alert-{rule}-{field}")
            else:
                ui.element("div").classes("w-80 shrink-0")
            held = ui.number(t("alerting.field.for_seconds"), suffix=t("alerting.unit.seconds"), min=0)
            self.fields[f"{rule}.for_seconds"] = held.classes("w-36 shrink-0").mark(f"alert-{rule}-for")

    def show(self, entry: ThresholdsEntry) -> None:
        """The stored thresholds in the fields, where they come from, and the rules written for them."""
        thresholds = entry.thresholds
        source = (
            self.t("alerting.source.admin", who=entry.updated_by or "—")
            if entry.source == "admin"
            else self.t("alerting.source.default")
        )
        self.heading.text = f"{self.name} · {source}"
        for rule in KINDS:
            settings = getattr(thresholds, rule)
            self.switches[rule].value = settings.enabled
            self.fields[f"{rule}.for_seconds"].value = settings.for_seconds
        # A type with no health expression never gets the unhealthy rule: nothing to switch on.
        self.rows["unhealthy"].set_visibility(entry.has_health)
        self._hot(entry)
        self.fields["memory.percent"].value = thresholds.memory.percent
        self.rules.clear()
        with self.rules:
            rules_table(self.t, entry.rules, self.device_type)
            self._not_generated(entry)

    def _not_generated(self, entry: ThresholdsEntry) -> None:
        """The rules switched on that are not written, because the type maps nothing for them to read,
        with a link to where it is mapped."""
        written = [] if entry.rules is None else entry.rules.rule_names
        missing = [] if entry.has_health else ["alerting.generated.no_health"]
        if entry.rules is not None and entry.thresholds.hot.enabled and "hot" not in written:
            missing.append("alerting.generated.no_temperature")
        for key in missing:
            with (
                ui.row()
                .classes("items-center gap-2")
                .props(f'data-testid="alert-not-generated-{self.device_type}"')
            ):
                ui.label(self.t(key, device_type=self.name)).classes("text-amber-800")
                ui.link(
                    self.t("thermal.warning.map", device_type=self.name), edit_url(self.device_type, step=2)
                )

    def _hot(self, entry: ThresholdsEntry) -> None:
        """The hot rule's own temperature; left empty, the thermal trip it follows (the temperature in
        force then) said beneath."""
        number = self.fields["hot.celsius"]
        number.value = entry.thresholds.hot.celsius
        if entry.thresholds.hot.celsius is None:
            number.props["hint"] = self.t("alerting.field.follows", trip=f"{entry.hot_celsius:g}")
        else:
            number.props.pop("hint", None)
        number.update()

    def read(self) -> AlertThresholds:
        body: dict[str, Any] = {}
        for rule in KINDS:
            held = self.fields[f"{rule}.for_seconds"].value
            # A whole number of seconds: the model is strict and the field gives floats.
            settings: dict[str, Any] = {
                "enabled": bool(self.switches[rule].value),
                "for_seconds": int(held) if held is not None and float(held).is_integer() else held,
            }
            if rule in _LEVEL:
                field = _LEVEL[rule][0]
                settings[field] = self.fields[f"{rule}.{field}"].value
            body[rule] = settings
        if body["memory"]["percent"] is None:
            del body["memory"]["percent"]  # empty: the default
        return AlertThresholds.model_validate(body)

    async def save(self) -> None:
        self._clear_errors()
        try:
            thresholds = self.read()
        except ValidationError as exc:
            self._field_errors(exc)
            self.error.text = first_error(exc, self.t)
            return
        try:
            saved = await context.services().alerts.put_thresholds(
                self.principal, self.device_type, thresholds
            )
        except NufiError as exc:
            self.error.text = exc.text(self.t.language)
            return
        self.show(saved)
        ui.notify(self.t("alerting.saved", device_type=self.name), type="positive")

    def _clear_errors(self) -> None:
        self.error.text = ""
        for number in self.fields.values():
            if number.props.pop("error", None) is not None:
                number.props.pop("error-message", None)
                number.update()

    def _field_errors(self, exc: ValidationError) -> None:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            number = self.fields.get(where)
            if number is not None:
                number.props["error"] = True
                number.props["error-message"] = validation_message(error).text(self.t.language)
                number.update()


def _severity(t: Translator, severity: str) -> str:
    key = _SEVERITY.get(severity)
    return severity if key is None else t(key)


def rules_table(t: Translator, group: RuleGroup | None, device_type: str) -> None:
    """The rules as Prometheus reads them: alert name, condition, `for:` and severity."""
    if group is None:
        ui.label(t("alerting.generated.none")).classes("text-slate-600")
        return
    rows = [
        {
            "key": str(rule["labels"][RULE_LABEL]),
            "alert": rule["alert"],
            "expr": rule["expr"],
            "for": rule["for"],
            "severity": _severity(t, str(rule["labels"]["severity"])),
        }
        for rule in group.document["rules"]
    ]
    labels = {
        "alert": t("alerting.generated.alert"),
        "expr": t("alerting.generated.expr"),
        "for": t("alerting.generated.for"),
        "severity": t("alerting.generated.severity"),
    }
    whole = {"classes": "text-no-wrap", "headerClasses": "text-no-wrap"}
    columns = [
        {"name": n, "label": label, "field": n, "align": "left"} | ({} if n == "expr" else whole)
        for n, label in labels.items()
    ]
    table = ui.table(columns=columns, rows=rows, row_key="key").classes("w-full")
    table.props(f'dense flat bordered wrap-cells data-testid="alert-rules-{device_type}"')
    table.mark(f"alert-rules-{device_type}")
    table.add_slot(
        "body-cell-expr",
        '<q-td key="expr" :props="props"><code style="white-space: pre-wrap; word-break: break-all; '
        'font-size: 0.8rem">{{ props.value }}</code></q-td>',
    )
