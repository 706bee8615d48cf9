"""The dashboard's modules import one another in one direction: the frame and the sign-in below the
skeleton, the skeleton below the pages; no module reaches back to one that imports it, not even lazily
inside a function or for type checking only."""

from __future__ import annotations

from support.import_graph import circles


def test_no_module_of_the_dashboard_imports_one_that_imports_it_back() -> None:
    assert circles("nufi.ui", skip=".locales.") == []
