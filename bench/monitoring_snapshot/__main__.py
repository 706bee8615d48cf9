"""`python -m bench.monitoring_snapshot` (part of `make bench`): the benchmark the package's docstring
describes."""

from __future__ import annotations

from bench.monitoring_snapshot.cli import main

if __name__ == "__main__":
    main()
