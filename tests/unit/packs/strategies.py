"""Valid pack documents for property tests: names and texts in any script, the settings of each section."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SLUG = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")
LABEL = st.from_regex(r"\A[a-zA-Z][a-zA-Z0-9_]{0,15}\Z")
# PromQL's keywords are names a metric cannot have in an expression of its own ("on" alone does not parse).
PROMQL_KEYWORDS = frozenset(
    [
        "and",
        "or",
        "unless",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "bool",
        "offset",
        "atan2",
        "start",
        "end",
    ]
)
METRIC = st.from_regex(r"\A[a-z][a-z0-9_]{0,30}\Z").filter(lambda name: name not in PROMQL_KEYWORDS)
# Display text: letters of any script and spaces inside, nothing stripped away.
TEXT = st.text(st.characters(categories=("L", "N"), exclude_characters="\x85"), min_size=1, max_size=30).map(
    lambda text: text.strip() or "x"
)
CELSIUS = st.integers(min_value=30, max_value=150).map(float)


@st.composite
def labels(draw: st.DrawFn) -> dict[str, str]:
    node, device = draw(st.lists(LABEL, min_size=2, max_size=2, unique=True))
    found = {"node": node, "device": device}
    if draw(st.booleans()):
        found["pod"] = draw(LABEL)
    return found


@st.composite
def metrics(draw: st.DrawFn) -> dict[str, Any]:
    found: dict[str, Any] = {"utilization": draw(METRIC)}
    if draw(st.booleans()):
        mode = draw(st.sampled_from(["used_total", "used_free"]))
        second = "total" if mode == "used_total" else "free"
        found["memory"] = {"mode": mode, "used": draw(METRIC), second: draw(METRIC), "unit": "bytes"}
    for name in ("temperature", "power", "health"):
        if draw(st.booleans()):
            found[name] = draw(METRIC)
    return found


@st.composite
def protection(draw: st.DrawFn) -> dict[str, Any]:
    trip = draw(CELSIUS)
    return {
        "enabled": draw(st.booleans()),
        "trip_celsius": trip,
        "resume_celsius": trip - draw(st.integers(min_value=1, max_value=30)),
        "scope": draw(st.sampled_from(["node", "device"])),
    }


@st.composite
def alerts(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "hot": {"celsius": draw(st.none() | CELSIUS), "for_seconds": draw(st.integers(0, 86400))},
        "memory": {"enabled": draw(st.booleans()), "percent": draw(st.integers(1, 100).map(float))},
    }


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": draw(TEXT),
        "vendor": draw(TEXT),
        "enabled": draw(st.booleans()),
        "resource_key": f"{draw(SLUG)}.example/{draw(SLUG)}",
        "labels": draw(labels()),
        "metrics": draw(metrics()),
    }
    if draw(st.booleans()):
        spec["protection"] = draw(protection())
    if draw(st.booleans()):
        spec["alerts"] = draw(alerts())
    return {"apiVersion": "nufi.io/v1", "kind": "DeviceType", "metadata": {"name": draw(SLUG)}, "spec": spec}
