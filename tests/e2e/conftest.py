"""The fixtures every e2e area shares (tests/e2e/<area>/): a sandbox per test module (see
`e2e_sandbox_support.running_sandbox`), the browser, one Chromium per test module, and the name of
the call a hung test waits on. The areas import the shared helpers absolutely (`e2e.browser_support`,
`e2e.e2e_sandbox_support`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser

from support.stuck import report_stuck_tasks

from .browser_support import chromium
from .e2e_sandbox_support import SandboxRun, running_sandbox

SANDBOX_TAIL_CHARS = 6000


@pytest.fixture(autouse=True)
async def name_the_stuck_await(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """A browser test that hangs says on which call (see `support.stuck`), and what its sandbox
    printed last."""
    context = None
    if "sandbox" in request.fixturenames:
        run: SandboxRun = request.getfixturevalue("sandbox")

        def context() -> str:
            return run.text()[-SANDBOX_TAIL_CHARS:]

    async with report_stuck_tasks(request.node, context):
        yield


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxRun]:
    """One ready sandbox per test module; a test that stops it leaves the rest of the module without.

    With --stop-on-failure: a program that dies fails the tests rather than being restarted unseen.
    """
    with running_sandbox("--stop-on-failure") as run:
        yield run


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium, headless, for the test module's pages."""
    async with chromium() as launched:
        yield launched
