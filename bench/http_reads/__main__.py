"""`python -m bench.http_reads` (part of `make bench`): the run the package's docstring describes."""

from __future__ import annotations

import sys

from bench.http_reads.cli import main

if __name__ == "__main__":
    sys.exit(main())
