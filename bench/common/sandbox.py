"""The one-command sandbox as the end-to-end tests run it, and the LPU as they register it.

tests/ holds that harness (tests/e2e) and is not on a benchmark's import path, so it is put there
here, once, for every benchmark that imports this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, running_sandbox, token

__all__ = ["LPU_REGISTRATION", "SandboxRun", "running_sandbox", "token"]
