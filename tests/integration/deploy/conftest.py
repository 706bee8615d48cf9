"""Rendered overlays, shared by the deploy tests of one run."""

from __future__ import annotations

import shutil

import pytest

from .deploy_manifests import EXAMPLE_OVERLAY, KUSTOMIZE_DIR, PRODUCTION_OVERLAY, Rendered, render


@pytest.fixture(scope="session")
def production() -> Rendered:
    return Rendered("production", render(PRODUCTION_OVERLAY))


@pytest.fixture(scope="session")
def example(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The example overlay as an operator would use it: secrets.env made from secrets.env.example."""
    copy = tmp_path_factory.mktemp("kustomize") / "kustomize"
    shutil.copytree(KUSTOMIZE_DIR, copy)
    overlay = copy / EXAMPLE_OVERLAY.relative_to(KUSTOMIZE_DIR)
    shutil.copyfile(overlay / "secrets.env.example", overlay / "secrets.env")
    return Rendered("example", render(overlay))


@pytest.fixture(scope="session", params=["production", "example"])
def overlay(request: pytest.FixtureRequest) -> Rendered:
    rendered: Rendered = request.getfixturevalue(request.param)
    return rendered
