"""What the user sees while the sandbox starts: one line per component, live in a terminal.

In a terminal the lines update in place (spinner, then a check mark and how long it took); when the
output goes to a file or a pipe, each change is printed once as a plain line, so logs stay readable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

State = Literal["waiting", "running", "done", "failed"]
_MARKS = {"waiting": ("·", "dim"), "done": ("✓", "green"), "failed": ("✗", "red")}


@dataclass
class Step:
    label: str
    state: State = "waiting"
    detail: str = ""
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None


class StartupProgress:
    """Steps keyed by a short name; `start()` before the first update, `close()` at the end."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self._steps: dict[str, Step] = {}
        self._live: Live | None = None

    @property
    def interactive(self) -> bool:
        return self.console.is_terminal

    def start(self) -> None:
        if self.interactive and self._live is None:
            self._live = Live(self, console=self.console, refresh_per_second=10, transient=False)
            self._live.start()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def add(self, key: str, label: str) -> None:
        self._steps[key] = Step(label)

    def running(self, key: str, detail: str = "") -> None:
        step = self._steps[key]
        step.state, step.detail, step.started = "running", detail, time.monotonic()
        self._changed(step)

    def done(self, key: str, detail: str = "") -> None:
        step = self._steps[key]
        step.state, step.seconds = "done", time.monotonic() - step.started
        step.detail = detail or step.detail
        self._changed(step)

    def failed(self, key: str, detail: str = "") -> None:
        step = self._steps[key]
        step.state, step.detail = "failed", detail or step.detail
        self._changed(step)

    def fail_unfinished(self, detail: str) -> None:
        for key, step in self._steps.items():
            if step.state == "running":
                self.failed(key, detail)

    def __rich__(self) -> RenderableType:
        table = Table.grid(padding=(0, 1))
        table.add_column(width=1)
        table.add_column()
        table.add_column(style="dim")
        for step in self._steps.values():
            if step.state == "running":
                mark: RenderableType = Spinner("dots", style="cyan")
            else:
                symbol, style = _MARKS[step.state]
                mark = Text(symbol, style=style)
            detail = step.detail
            if step.seconds is not None:
                detail = f"{detail}  ({step.seconds:.1f} s)" if detail else f"({step.seconds:.1f} s)"
            table.add_row(mark, step.label, detail)
        return Group(table)

    def _changed(self, step: Step) -> None:
        if self._live is not None:
            self._live.refresh()
            return
        words = {"running": "...", "done": "ok", "failed": "FAILED", "waiting": "waiting"}
        line = f"{words[step.state]:>6}  {step.label}"
        if step.detail:
            line += f"  {step.detail}"
        if step.seconds is not None:
            line += f"  ({step.seconds:.1f} s)"
        self.console.print(line, markup=False, soft_wrap=True)
