"""Import circles inside one package of nufi, found on the real import graph (grimp, as import-linter)."""

from __future__ import annotations

import grimp


def circles(package: str, *, skip: str | None = None) -> list[tuple[str, str]]:
    """Each pair of `package`'s modules that reach each other through imports, lazy or for type checking
    included; modules whose name holds `skip` are left out."""
    graph = grimp.build_graph("nufi", cache_dir=None)
    modules = sorted(
        m for m in graph.modules if m.startswith(f"{package}.") and (skip is None or skip not in m)
    )
    return [
        (a, b)
        for a in modules
        for b in modules
        if a < b and graph.chain_exists(a, b) and graph.chain_exists(b, a)
    ]
