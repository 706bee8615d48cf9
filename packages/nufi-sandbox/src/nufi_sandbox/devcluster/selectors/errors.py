"""The one error of selector parsing."""

from __future__ import annotations


class SelectorError(ValueError):
    """A selector that the real API server would reject (HTTP 400)."""
