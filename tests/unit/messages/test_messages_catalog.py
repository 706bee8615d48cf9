"""The message catalogs: both languages word every code with the same fields, every code the code
names is worded, every domain error names a code, and `docs/messages.md` lists them all."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.errors import NotFound, ValidationFailed
from nufi.messages import CATALOG, LANGUAGES, Message, fields_of, render, render_sentence
from nufi.messages.catalog import missing_codes
from nufi.messages.document import document
from support.message_sites import parse_all, sites, unworded

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[3]
SOURCES = [REPO / "src" / "nufi"]


def _trees() -> dict[str, ast.Module]:
    trees: dict[str, ast.Module] = {}
    for root in SOURCES:
        trees.update(parse_all(root, REPO))
    return trees


def test_both_languages_word_the_same_codes() -> None:
    assert missing_codes() == {language: set() for language in LANGUAGES}


@pytest.mark.parametrize("code", sorted(CATALOG["en"]))
def test_each_code_has_the_same_fields_in_every_language(code: str) -> None:
    fields = {language: fields_of(CATALOG[language][code]) for language in LANGUAGES}
    assert fields["ko"] == fields["en"], code


@pytest.mark.parametrize("code", sorted(CATALOG["en"]))
def test_each_code_renders_in_every_language(code: str) -> None:
    params: dict[str, object] = {name: 2 for name in fields_of(CATALOG["en"][code])}
    # A list field ({figures:list}) joins items: give it a list of them.
    params |= {
        name: [2, 2]
        for _, name, spec, _ in string.Formatter().parse(CATALOG["en"][code])
        if name and (spec or "").startswith("list")
    }
    for language in LANGUAGES:
        assert "{" not in render(language, code, params).replace("{{", "")


def test_every_code_the_code_names_is_worded_with_the_fields_it_gives() -> None:
    found = sites(_trees())
    assert len(found) > 20, "the walk finds the raise sites"
    unknown = [f"{site}: {site.code}" for site in found if site.code and site.code not in CATALOG["en"]]
    assert unknown == []
    short = [
        f"{site}: {site.code} lacks {sorted(fields_of(CATALOG['en'][site.code]) - site.names)}"
        for site in found
        if site.code in CATALOG["en"]
        and site.names is not None
        and not fields_of(CATALOG["en"][site.code]) <= site.names
    ]
    assert short == []


def test_every_domain_error_names_a_code() -> None:
    assert [str(site) for site in unworded(sites(_trees()))] == []


def test_the_walk_catches_an_error_without_a_code_and_an_unknown_code() -> None:
    source = ast.parse(
        "class NufiError(Exception): ...\n"
        "class Mine(NufiError): ...\n"
        "class Worded(Mine):\n"
        "    def __init__(self, x):\n"
        "        super().__init__(code='x.y', x=x)\n"
        "raise Mine('a sentence')\n"
        "raise Mine(code='nope.never', field='f')\n"
        "raise Worded(1)\n"
    )
    found = sites({"made_up.py": source})
    found.sort(key=lambda site: site.line)
    assert [(site.line, site.code) for site in found] == [(5, "x.y"), (6, None), (7, "nope.never")]
    assert found[2].names == frozenset({"field"})


def test_docs_list_every_code() -> None:
    assert (REPO / "docs" / "messages.md").read_text(encoding="utf-8") == document(), (
        "run `python -m nufi.messages.document > docs/messages.md`"
    )


def test_an_error_is_worded_in_the_language_asked() -> None:
    error = ValidationFailed(code="request.string_too_long", field="name", params={"max_length": 3})
    assert error.detail == "must have at most 3 characters"
    assert error.text("ko") == "3자 이하여야 합니다"
    assert error.title_text("ko") == "입력 검증 실패"
    assert NotFound(code="http.status", params={"status": 404}).title_text("en") == "Not found"


def test_plurals_and_nested_messages_follow_the_language() -> None:
    one = {"reason": "x", "location": Message("request.location.query"), "field": "n", "more": 1}
    assert render("en", "request.invalid_more", one).endswith("(and 1 more problem, listed in 'errors')")
    assert "problems" in render("en", "request.invalid_more", {**one, "more": 2})
    assert render("ko", "request.invalid_more", one).startswith("쿼리의 n 값")


def test_a_sentence_raises_its_own_first_letter_never_a_value_it_begins_with() -> None:
    late = {"device_type": "nvidia-gpu", "lag_seconds": 5.3, "limit_seconds": 3}
    assert render_sentence("en", "metrics_backend.lagging", late).startswith(
        "The newest sample of nvidia-gpu"
    )
    # The Korean text begins with the type's id: it stays as the admin wrote it.
    assert render_sentence("ko", "metrics_backend.lagging", late).startswith("nvidia-gpu의 ")
    in_time = {"lag_seconds": 0.4, "limit_seconds": 3}
    assert render_sentence("en", "metrics_backend.in_time", in_time) == (
        "The newest samples were at most 0.4 s old when read (limit 3 s)"
    )


@given(st.text(alphabet=string.printable, max_size=30))
def test_a_param_is_shown_as_given_never_read_as_a_template(value: str) -> None:
    assert value in render("en", "http.status", {"status": value})
