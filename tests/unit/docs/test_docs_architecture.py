"""docs/ARCHITECTURE.md draws what is built: its layer table is the import contract, its service table is
`Services`, each field said in words; and no page announces as coming what the README describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.architecture_doc import PAGE, REPO, regions, render, service_table

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# A roadmap marker: a "Next" heading or label, or something said to come next.
ROADMAP = re.compile(r"^#+\s*next\b|\*\*next\*\*:|\*\*next:\*\*|\bnext:|\bcoming next\b", re.I | re.M)


def test_the_page_has_both_generated_tables() -> None:
    assert sorted(regions(PAGE.read_text(encoding="utf-8"))) == ["layers", "services"]


def test_the_generated_tables_match_the_code() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert render(page) == page, "docs/ARCHITECTURE.md is stale: run `make docs`"


def test_every_service_says_what_it_is() -> None:
    rows = [row for row in service_table().splitlines()[2:] if row.endswith("|  |")]
    assert not rows, f"add a comment above these fields of Services (or a docstring to their class): {rows}"


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_no_page_announces_what_comes_next(page: Path) -> None:
    found = [match.group(0) for match in ROADMAP.finditer(page.read_text(encoding="utf-8"))]
    assert not found, f"{page} describes what exists only; plans go to the tracker: {found}"
