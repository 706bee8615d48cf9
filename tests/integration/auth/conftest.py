"""The real dev identity provider, started once for the auth integration tests, and a NuFi app
pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from nufi_sandbox.idp.launcher import IdentityProviderProcess
from support.env import clear_nufi_env

from .idp_support import USERS, nufi_settings, serving


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_nufi_env(monkeypatch)


@pytest.fixture(scope="session")
def users_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("idp-users") / "users.yaml"
    path.write_text(yaml.safe_dump(USERS))
    return path


@pytest.fixture(scope="session")
def idp(tmp_path_factory: pytest.TempPathFactory, users_file: Path) -> Iterator[IdentityProviderProcess]:
    provider = IdentityProviderProcess(tmp_path_factory.mktemp("idp"), users_file=users_file).start()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.fixture
async def nufi(idp: IdentityProviderProcess) -> AsyncIterator[httpx.AsyncClient]:
    """A NuFi app whose issuer is the dev identity provider, with no audience configured."""
    async with serving(nufi_settings(oidc_issuer=idp.issuer)) as client:
        yield client
