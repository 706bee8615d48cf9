"""Sandboxes for the end-to-end tests: each in a short directory under /tmp (kubelet socket paths
must fit in 108 bytes, see `short_tmp`), stopped and removed even when a test fails half-way."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .e2e_sandbox_support import SandboxRun


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
