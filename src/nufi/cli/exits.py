"""Exit codes scripts can rely on (docs/cli.md, "Exit codes"), and the failure that carries one."""

from __future__ import annotations

from collections.abc import Sequence

OK = 0
# The server understood and refused: a 4xx problem other than 401/403 (not found, conflict, invalid).
REFUSED = 1
# The command line itself is wrong: an unknown option, a missing or unreadable file, an invalid pack.
USAGE = 2
# Nothing was decided: the server is unreachable or failing (5xx), or the caller is not signed in (401)
# or not allowed (403). Retrying after `nufi login` or later may succeed.
UNAVAILABLE = 3


class CliFailure(Exception):
    """Ends a command: `lines` go to stderr and the process exits with `exit_code`."""

    def __init__(self, exit_code: int, lines: Sequence[str]) -> None:
        super().__init__("\n".join(lines))
        self.exit_code = exit_code
        self.lines = list(lines)
