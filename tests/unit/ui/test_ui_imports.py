"""The dashboard's modules import one another in one direction: the frame and the sign-in below the
skeleton, the skeleton below the pages; no module reaches back to one that imports it, not even lazily
inside a function or for type checking only."""

from __future__ import annotations

import grimp


def test_no_module_of_the_dashboard_imports_one_that_imports_it_back() -> None:
    graph = grimp.build_graph("nufi", cache_dir=None)
    modules = sorted(m for m in graph.modules if m.startswith("nufi.ui.") and ".locales." not in m)
    circles = [
        (a, b)
        for a in modules
        for b in modules
        if a < b and graph.chain_exists(a, b) and graph.chain_exists(b, a)
    ]
    assert circles == []
