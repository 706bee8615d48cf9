"""`python -m bench.load` (and `make load`): the run the package's docstring describes."""

from __future__ import annotations

import sys

from bench.load.cli import main

if __name__ == "__main__":
    sys.exit(main())
