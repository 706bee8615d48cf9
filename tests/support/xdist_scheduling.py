"""How `make test` shares the test modules among its pytest-xdist workers.

`--dist loadfile` keeps a module on one worker, so its module fixtures (a sandbox, a browser) start
once. A package fixture is another matter: a worker tears it down whenever its next module is from
another package, and each worker starts its own. The integration areas below start costly package
fixtures (a dev cluster of their own, exporters scraped by Prometheus, a NuFi server, a lab server),
so all their modules go to one worker as one unit of work, run one after the other.

Units are handed out in collection order (with `--no-loadscope-reorder`): tests/e2e first, whose
modules are the longest, and tests/unit last, whose many short modules even out the end of the run.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# The tests/integration/<area> packages whose conftest.py starts something for the whole package.
WHOLE_PACKAGE_AREAS = frozenset({"catalog", "faults", "labs", "monitoring", "ui"})


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its integration area if that is one of
    `WHOLE_PACKAGE_AREAS`, else its module."""
    module = nodeid.split("::", 1)[0]
    parts = module.split("/")
    if len(parts) > 3 and parts[:2] == ["tests", "integration"] and parts[2] in WHOLE_PACKAGE_AREAS:
        return "/".join(parts[:3])
    return module


class AreaOrModuleScheduling(LoadFileScheduling):  # type: ignore[misc]  # xdist ships no types
    """`--dist loadfile`, with the units of `work_unit`."""

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)
