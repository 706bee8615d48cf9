"""Admin → Projects' paging: how many pages a count of projects fills, and which page `?page=` asks for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.ui.pages.projects import PAGE_SIZE, page_count, requested_page


@given(st.integers(min_value=0, max_value=100_000))
def test_the_pages_hold_every_project_and_no_page_is_empty_but_the_only_one(total: int) -> None:
    pages = page_count(total)
    assert pages >= 1
    assert (pages - 1) * PAGE_SIZE < max(total, 1) <= pages * PAGE_SIZE


def test_page_counts_at_the_edges() -> None:
    assert [page_count(n) for n in (0, 1, PAGE_SIZE, PAGE_SIZE + 1, 130)] == [1, 1, 1, 2, 7]


@given(st.text())
def test_any_page_parameter_is_a_positive_page(text: str) -> None:
    page = requested_page(text)
    assert page >= 1
    plain = text.isascii() and text.isdigit() and len(text) <= 9
    assert page == (int(text) if plain and int(text) > 0 else 1)


def test_page_parameters() -> None:
    assert [requested_page(t) for t in ("3", "", "0", "-2", "two", "1e3", "٣", "9" * 5000)] == [3] + [1] * 7
