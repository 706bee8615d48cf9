"""Sandboxes for the end-to-end tests: each in a short directory under /tmp (kubelet socket paths
must fit in 108 bytes, see `short_tmp`), stopped and removed even when a test fails half-way; and the
browser, one Chromium per test module."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from support.stuck import report_stuck_tasks

from .browser_support import chromium
from .e2e_sandbox_support import SandboxRun

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


@contextlib.contextmanager
def running_sandbox(*args: str) -> Iterator[SandboxRun]:
    """A ready sandbox started with `args`, stopped and removed afterwards whatever happened."""
    work = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    run = SandboxRun.start(work, args=args)
    try:
        run.wait_ready()
        yield run
    finally:
        run.cleanup()
        shutil.rmtree(work, ignore_errors=True)


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
