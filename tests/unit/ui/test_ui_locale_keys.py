"""Every key the dashboard's code uses is in the catalog, in both languages, with the same fields
(those the code fills), and every key in the catalog is used — read from the code with `ast`
(`support.locale_keys`).

Keys the code builds while it runs are declared in `DYNAMIC` with the values they can take; the
checker itself is tested on small made-up sources and catalogs, so each failure it claims to catch
is shown caught.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.messages import CATALOG as MESSAGES
from nufi.messages import areas_of
from nufi.ui.i18n import CATALOG, DASHBOARD_AREAS, LANGUAGES, join_areas
from nufi.ui.pages.deployments import Deployments
from nufi.ui.pages.labs import Labs
from nufi.ui.parts.audit_lines import WORDED
from nufi.ui.parts.workload_page import KindText
from support.locale_keys import check, duplicate_dict_keys, python_sources, scan
from support.locale_sources import IN_CODE, FromCode, Site, Source, Tuples, Values, values_of

SRC = Path(__file__).resolve().parents[3] / "src"
LOCALES = SRC / "nufi" / "ui" / "locales"

# The dashboard's workload kinds (ui/parts/workload_page.py), each with its own area of texts.
KINDS = (Deployments, Labs)

# Each key the code builds from a value, with the values it can take. IN_CODE: the code lists them
# where it builds the key (a table's columns, a loop's values, the calls of a private function).
DYNAMIC: dict[str, Source] = {
    "audit.action.{}": FromCode("nufi.db.audit:ACTIONS"),
    "audit.field.{}": FromCode("nufi.ui.parts.audit_lines:FIELDS"),
    "audit.value.{}.{}": Tuples(*((field, value) for field, values in WORDED.items() for value in values)),
    "charts.metric.{}": IN_CODE,
    "charts.unit.{}": FromCode("nufi.monitoring.ranges.request:RangeMetric"),
    # WorkloadKind.columns and .text: each kind's column headings and texts, under the kind's own area.
    "{}.column.{}": Tuples(*((kind.area, name) for kind in KINDS for name in kind.column_names)),
    "{}.{}": Tuples(*((kind.area, what) for kind in KINDS for what in values_of(KindText))),
    "devices.column.{}": IN_CODE,
    "devices.kind.{}": FromCode("nufi.devices.spec:DeviceKind"),
    "labs.active.ago.{}": FromCode("nufi.ui.parts.workload_forms:AgeUnit"),
    "labs.done.{}": IN_CODE,
    "monitoring.column.{}": IN_CODE,
    "monitoring.state.{}": FromCode("nufi.ui.parts.device_state:DataState"),
    # ThermalService.marked_nodes: the nodes thermal control has cut, kept serving or cannot read.
    "monitoring.thermal.{}": Values("hot", "kept", "stale", "unhealthy", "held"),
    "thermal.column.{}": IN_CODE,
    "thermal.dry_run.{}": IN_CODE,
    # PolicyEntry.source: the type's thermal defaults, or a policy an administrator stored.
    "thermal.source.{}": Values("default", "admin"),
    "thermal.state.{}": FromCode("nufi.thermal.protection.hysteresis:ThermalState"),
    "wizard.column.{}": IN_CODE,
    "wizard.field.{}": IN_CODE,
    "wizard.label.{}": IN_CODE,
    "wizard.memory.mode.{}": FromCode("nufi.devices.spec:MemoryMode"),
    "workloads.age.{}": FromCode("nufi.ui.parts.workload_forms:AgeUnit"),
    "workloads.status.{}": FromCode(
        "nufi.workloads.deployments.status:Status", "nufi.workloads.labs.model:LabStatus"
    ),
}


def dashboard_sources() -> dict[str, str]:
    """All of nufi's code (pages, parts, sign-in pages, the API), but the catalog itself."""
    return python_sources(SRC / "nufi", SRC, skip=("nufi/ui/locales/", "nufi/ui/i18n.py", "nufi/messages/"))


# The services' message codes share some areas' names with the dashboard's keys; they are worded by
# `nufi.messages` (tests/unit/messages), not by this catalog.
MESSAGE_CODES = frozenset(MESSAGES["en"])


def test_the_dashboard_code_and_the_catalog_agree() -> None:
    problems = check(dashboard_sources(), CATALOG, DYNAMIC, MESSAGE_CODES).problems()
    assert problems == [], "\n".join(problems)


def test_the_checker_finds_the_dashboards_keys() -> None:
    prefixes = {key.split(".")[0] for key in set(CATALOG["ko"]) - MESSAGE_CODES}
    uses = scan(dashboard_sources(), prefixes, MESSAGE_CODES)
    assert {"nav.monitoring", "wizard.next", "signin.again", "thermal.title"} <= set(uses.keys)
    assert {"thermal.column.{}", "workloads.status.{}"} <= set(uses.templates)


# -- the language packages -------------------------------------------------------------------------


def test_every_area_module_of_a_language_is_found() -> None:
    for language in LANGUAGES:
        package = importlib.import_module(f"nufi.ui.locales.{language}")
        files = {path.stem for path in (LOCALES / language).glob("*.py") if path.stem != "__init__"}
        assert set(areas_of(package)) == files, language
        assert {
            area: importlib.import_module(f"nufi.ui.locales.{language}.{area}").TEXTS for area in files
        } == DASHBOARD_AREAS[language]


def test_the_dashboard_words_from_the_one_catalog_with_the_services_codes_in_it() -> None:
    for language in LANGUAGES:
        assert set(MESSAGES[language]) <= set(CATALOG[language])
        assert set(join_areas(DASHBOARD_AREAS[language])) == set(CATALOG[language]) - set(MESSAGES[language])


def test_a_key_lives_in_the_same_area_in_every_language() -> None:
    areas = DASHBOARD_AREAS
    first, *others = LANGUAGES
    for other in others:
        assert list(areas[first]) == list(areas[other])
        for area, texts in areas[first].items():
            assert set(texts) == set(areas[other][area]), (other, area)


def test_no_area_writes_a_key_twice() -> None:
    for path in sorted(LOCALES.rglob("*.py")):
        assert duplicate_dict_keys(path.read_text()) == [], path


def test_joining_areas_refuses_a_key_two_areas_define() -> None:
    assert join_areas({"a": {"x.one": "1"}, "b": {"x.two": "2"}}) == {"x.one": "1", "x.two": "2"}
    with pytest.raises(ValueError, match=r"'x\.one' is defined in both 'a' and 'b'"):
        join_areas({"a": {"x.one": "1"}, "b": {"x.one": "one"}})


def test_a_key_a_dict_literal_writes_twice_is_found() -> None:
    assert duplicate_dict_keys('TEXTS = {"a.b": "1", "a.c": "2", "a.b": "3"}') == ["a.b"]


# -- the checker, on made-up code and catalogs -----------------------------------------------------

EVERY_CALL_FORM = """
from nufi.ui.i18n import Translator, text
from nufi.ui import i18n

def page(language, t, self, page_object, tr: Translator):
    text(language, "a.text")
    i18n.text(language, key="a.module_text")
    t("a.t", count=1)
    self.t("a.self_t")
    page_object.t("a.page_t")
    Translator(language)("a.translator")
    tr("a.annotated")
    bound = Translator(language)
    bound("a.bound")
    menu = (("/x", "a.menu"),)
    entry = NavEntry(lambda t: t("a.nav"), "icon")
    button(forward_key="a.keyword")
    t("b.any_area_in_a_call")
    not_keys = "labels.node", "a.", "a", "a.b c", "A.b", f"{language}: a.b"
"""


def test_the_checker_sees_every_way_a_key_reaches_the_catalog() -> None:
    uses = scan({"page.py": EVERY_CALL_FORM}, {"a"})
    assert set(uses.keys) == {
        "a.text", "a.module_text", "a.t", "a.self_t", "a.page_t", "a.translator",
        "a.annotated", "a.bound", "a.menu", "a.nav", "a.keyword", "b.any_area_in_a_call",
    }  # fmt: skip
    assert uses.keys["a.t"] == [Site("page.py", 8)]
    assert uses.templates == {}


def catalog_of(*keys: str, en: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    korean = {key: f"{key} 텍스트" for key in keys}
    return {"ko": korean, "en": en if en is not None else {key: f"{key} text" for key in keys}}


def test_a_key_used_and_missing_from_the_catalog_is_found() -> None:
    code = 'def page(t):\n    t("a.here")\n    t("a.gone")\n    t("new.area")\n'
    findings = check({"page.py": code}, catalog_of("a.here"), {})
    assert findings.missing == {"a.gone": [Site("page.py", 3)], "new.area": [Site("page.py", 4)]}
    assert "used and not in the catalog: a.gone at page.py:3" in findings.problems()


def test_a_key_in_one_language_only_is_found() -> None:
    code = 'def page(t):\n    t("a.both")\n    t("a.korean")\n'
    catalog = catalog_of("a.both", "a.korean", en={"a.both": "both"})
    findings = check({"page.py": code}, catalog, {})
    assert findings.one_language == {"a.korean": {"ko"}}
    assert not findings.missing and not findings.unused


def test_a_key_no_code_uses_is_found() -> None:
    code = 'def page(t):\n    t("a.used")\n'
    findings = check({"page.py": code}, catalog_of("a.used", "a.forgotten"), {})
    assert findings.unused == {"a.forgotten"}
    assert findings.problems() == ["in the catalog, used by no code: a.forgotten"]


def test_a_field_in_one_language_only_is_found() -> None:
    code = 'def page(t):\n    t("a.count", n=1)\n    t("a.same", n=1)\n'
    catalog = {
        "ko": {"a.count": "{n}개", "a.same": "{n.real}개"},
        "en": {"a.count": "{n} of {total}", "a.same": "{n}"},
    }
    findings = check({"page.py": code}, catalog, {})
    assert findings.fields_differ == {"a.count": {"ko": {"n"}, "en": {"n", "total"}}}


def test_a_call_filling_other_fields_than_its_text_takes_is_found() -> None:
    code = (
        "def page(t, n, fields):\n"
        '    t("a.count", n=n)\n'
        '    t("a.count")\n'
        '    t("a.count", m=n)\n'
        '    t("a.count", **fields)\n'
        '    for unit in ("d",):\n'
        '        t(f"a.age.{unit}")\n'
    )
    texts = {"a.count": "{n} items", "a.age.d": "{n} days"}
    findings = check({"page.py": code}, {"ko": texts, "en": texts}, {"a.age.{}": IN_CODE})
    assert sorted(findings.unfilled, key=lambda found: found[0].line) == [
        (Site("page.py", 3), "a.count", {"n"}, set()),
        (Site("page.py", 4), "a.count", {"n"}, {"m"}),
        (Site("page.py", 7), "a.age.d", {"n"}, set()),
    ]
    assert "page.py:3: a.count takes the fields ['n'], the call fills []" in findings.problems()


SHADES = Literal["light", "dark"]

BUILT_KEYS = """
from nufi.ui.wizard.draft import IDENTITY_SLOTS

COLUMNS = ("name", "age")

def table(t, row, choice):
    columns = [t(f"a.column.{name}") for name in COLUMNS]
    fields = [t(f"a.field.{slot}") for slot in IDENTITY_SLOTS]
    for unit, size in (("d", 86400), ("h", 3600)):
        t(f"a.age.{unit}")
    shown = "on" if row else "off"
    t("a.switch." + shown)
    _done(t, "start")
    _done(t, "stop" if choice else "start")
    t(f"a.shade.{row.shade}")
    t(f"a.free.{row.free}")

def _done(t, action):
    return t(f"a.done.{action}")
"""


def test_built_keys_take_the_values_the_code_lists_or_the_declaration_gives() -> None:
    keys = (
        *("a.column.name", "a.column.age", "a.age.d", "a.age.h", "a.switch.on", "a.switch.off"),
        *("a.done.start", "a.done.stop", "a.shade.light", "a.shade.dark"),
        *(f"a.field.{slot}" for slot in ("id", "name", "vendor", "resource_key")),
    )
    dynamic: dict[str, Source] = {
        "a.column.{}": IN_CODE,
        "a.field.{}": IN_CODE,
        "a.age.{}": IN_CODE,
        "a.switch.{}": IN_CODE,
        "a.done.{}": IN_CODE,
        "a.shade.{}": FromCode(f"{__name__}:SHADES"),
        "a.free.{}": Values("x"),
    }
    findings = check({"table.py": BUILT_KEYS}, catalog_of(*keys, "a.free.x"), dynamic)
    assert findings.problems() == []
    findings = check({"table.py": BUILT_KEYS}, catalog_of(*keys[1:], "a.free.x"), dynamic)
    assert set(findings.missing) == {"a.column.name"}


def test_a_built_key_is_declared_and_its_values_known_or_it_is_reported() -> None:
    code = 'def page(t, row):\n    t(f"a.state.{row.state}")\n    t(f"{row.area}.title")\n'
    findings = check({"page.py": code}, catalog_of("a.state.on"), {})
    assert findings.undeclared == {"a.state.{}": [Site("page.py", 2)], "{}.title": [Site("page.py", 3)]}
    assert findings.unused == {"a.state.on"}
    findings = check({"page.py": code}, catalog_of("a.state.on"), {"a.state.{}": IN_CODE})
    assert findings.unresolved == {"a.state.{}": [Site("page.py", 2)]}
    findings = check({"page.py": code}, catalog_of("a.state.on"), {"a.state.{}": Values("on", "off")})
    assert set(findings.missing) == {"a.state.off"}


def test_a_declaration_no_code_builds_is_reported() -> None:
    code = 'def page(t):\n    t("a.plain")\n'
    findings = check({"page.py": code}, catalog_of("a.plain"), {"a.gone.{}": Values("x")})
    assert findings.stale == {"a.gone.{}"}
    assert findings.problems() == ["declared, and no code builds it: a.gone.{}"]


# -- the checker against a model: random catalogs, random code -------------------------------------

WORDS = st.sampled_from(["one", "two", "three", "four", "five", "six"])
KEYS = st.builds(lambda area, name: f"{area}.{name}", st.sampled_from(["a", "b"]), WORDS)
# The ways code hands a key to the catalog; the last is a plain string, a key only in an area the
# catalog has (in a call of the catalog, any string is a key).
CALLS = ('text(language, "{key}")', 't("{key}")', 'self.t("{key}", n=1)', 'Translator(language)("{key}")')
PLAIN = 'entries = (("/path", "{key}"),)'


@given(
    st.sets(KEYS, min_size=1),
    st.lists(st.tuples(KEYS, st.sampled_from((*CALLS, PLAIN))), min_size=1),
)
def test_the_checker_reports_exactly_the_missing_and_the_unused_keys(
    catalogued: set[str], calls: list[tuple[str, str]]
) -> None:
    body = "\n".join("    " + form.format(key=key) for key, form in calls)
    code = f"def page(language, t, self):\n{body}\n"
    findings = check({"page.py": code}, catalog_of(*catalogued), {})
    areas = {key.split(".")[0] for key in catalogued}
    used = {key for key, form in calls if form in CALLS or key.split(".")[0] in areas}
    assert set(findings.missing) == used - catalogued
    assert findings.unused == catalogued - used
    assert not findings.one_language and not findings.fields_differ


FIELD_NAMES = st.sets(st.sampled_from(["node", "count", "name", "total"]))


@given(FIELD_NAMES, FIELD_NAMES)
def test_the_checker_reports_texts_whose_fields_differ(korean: set[str], english: set[str]) -> None:
    def template(names: set[str]) -> str:
        return "text " + " ".join(f"{{{name}}}" for name in sorted(names))

    catalog = {"ko": {"a.key": template(korean)}, "en": {"a.key": template(english)}}
    findings = check({"page.py": 'def page(t):\n    t("a.key")\n'}, catalog, {})
    assert ("a.key" in findings.fields_differ) == (korean != english)
