"""Installing a fetcher plugin the way pip would, for one test: a package and its `*.dist-info`.

The distribution is laid out in a directory put on sys.path, so importlib.metadata finds its entry
points exactly as it finds an installed wheel's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from nufi.devices.fetcher_registry import ENTRY_POINT_GROUP


@contextmanager
def installed_distribution(
    root: Path, name: str, modules: Mapping[str, str], fetchers: Mapping[str, str]
) -> Iterator[Path]:
    """Install distribution `name` with `modules` (module name to source) and the entry points
    `fetchers` (fetcher name to `module:attribute`) under `root` until the context ends."""
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source)
    dist_info = root / f"{name.replace('-', '_')}-1.0.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\n")
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{fetcher} = {target}" for fetcher, target in fetchers.items())]
    (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(root))
        try:
            yield root
        finally:
            for module in modules:
                sys.modules.pop(module, None)
