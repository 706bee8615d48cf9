"""Helpers shared by the test suites: import as `support.<module>` (pyproject puts tests/ on the path)."""
