"""`python -m bench.dashboard_page` (part of `make bench`): the benchmark the package's docstring
describes."""

from __future__ import annotations

from bench.dashboard_page.cli import main

if __name__ == "__main__":
    main()
