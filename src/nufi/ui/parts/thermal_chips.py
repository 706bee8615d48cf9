"""Thermal states as coloured chips with their words, on Admin → Thermal and in Monitoring's table.

A colour alone says nothing to a reader who cannot tell red from green, so every chip carries its word;
the colour is the same for the same meaning on every page: hot and cut red, stale and kept amber,
normal green.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from nufi.thermal.policy import CustomCondition
from nufi.ui.i18n import Translator

ChipKind = Literal[
    "normal",
    "healthy",
    "hot",
    "unhealthy",
    "tripped",
    "stale",
    "cut",
    "kept",
    "held",
    "on",
    "implausible",
    "not_reporting",
]

COLORS: dict[str, str] = {
    "normal": "green-7",
    "healthy": "green-7",
    "on": "green-7",
    "hot": "red-7",
    "unhealthy": "red-7",
    "tripped": "red-7",
    "cut": "red-7",
    "stale": "amber-9",
    "kept": "amber-9",
    "held": "amber-9",
    "implausible": "amber-9",
    "not_reporting": "grey-7",
}


def chip(kind: str, label: str, title: str = "") -> dict[str, str]:
    """One chip of a table cell: its word, its colour by `kind`, and a tooltip (empty: none)."""
    return {"kind": kind, "label": label, "color": COLORS.get(kind, "grey-7"), "title": title}


def state_chips(t: Translator, state: str, hot: bool, serving: Sequence[bool] = ()) -> list[dict[str, str]]:
    """A watched node's state, and what became of its traffic while it is hot (or stale after hot):
    cut, or kept when every pod on it still serves (the last replica of its deployment). `serving`
    says of each pod on the node whether its traffic is on."""
    chips = [chip(state, t(f"thermal.state.{state}"))]
    if hot and serving and all(serving):
        chips.append(chip("kept", t("thermal.kept")))
    elif hot:
        chips.append(chip("cut", t("thermal.cut")))
    return chips


def chips_slot(column: str, *, wrap: bool = False) -> str:
    """A table's body-cell slot showing the list of chips in the row's `column` (see `chip`), on one
    line unless `wrap`; each chip's kind in `data-state`, so a test reads what the colour means."""
    lines = "" if wrap else " no-wrap"
    return (
        f'<q-td key="{column}" :props="props">'
        f'<div class="row{lines} items-center" style="gap: 4px">'
        f'<q-chip v-for="(c, i) in props.row.{column}" :key="i" dense square :color="c.color" '
        'text-color="white" :label="c.label" :title="c.title || null" :data-state="c.kind" '
        'class="q-ma-none" />'
        f'<span v-if="!props.row.{column}.length" class="text-grey-6">—</span>'
        "</div></q-td>"
    )


def chip_words(chips: list[dict[str, str]]) -> str:
    """The chips' words in a row, as a reader says them (for a cell's plain-text twin)."""
    return " · ".join(c["label"] for c in chips)


def condition_name(t: Translator, custom: CustomCondition) -> str:
    """What the admin called their own condition, or "own condition" in the page's language."""
    shown = custom.shown_name
    return shown if isinstance(shown, str) else shown.text(t.language)
