"""The one error the sandbox shows its user as a plain message instead of a traceback."""

from __future__ import annotations


class SandboxError(RuntimeError):
    """Something the user can fix; the message says what and how."""
