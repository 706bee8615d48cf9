"""Keys across identity provider restarts: kept with the state directory, picked up when rotated."""

from __future__ import annotations

from pathlib import Path

import jwt
import pytest

from nufi.auth import InvalidToken, TokenVerifier
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.processes import free_port
from support.polling import until

REFRESH_INTERVAL = 0.3


def _kid(token: str) -> str:
    kid: str = jwt.get_unverified_header(token)["kid"]
    return kid


async def test_a_rotated_key_is_fetched_on_its_first_token_and_the_old_one_dropped(
    tmp_path: Path, users_file: Path
) -> None:
    port = free_port()
    started: list[IdentityProviderProcess] = []

    async def start(state: str) -> IdentityProviderProcess:
        provider = IdentityProviderProcess(tmp_path / state, users_file=users_file, port=port)
        started.append(provider)
        return await provider.start_async()

    verifier: TokenVerifier | None = None
    try:
        first = await start("a")
        verifier = TokenVerifier.for_issuer(first.issuer, min_refresh_interval=REFRESH_INTERVAL)
        old_token = first.password_token("admin", "admin-pw")
        assert (await verifier.verify(old_token)).username == "admin"
        await first.stop_async()

        # Same state directory: same key, so earlier tokens stay valid and nothing is refetched.
        restarted = await start("a")
        assert _kid(restarted.password_token("user", "user-pw")) == _kid(old_token)
        assert (await verifier.verify(old_token)).username == "admin"
        await restarted.stop_async()

        rotated = await start("b")
        new_token = rotated.password_token("admin", "admin-pw")
        assert _kid(new_token) != _kid(old_token)
        assert verifier.keys.fetch_count == 1

        async def verifies_new_token() -> str | None:
            try:
                return (await verifier.verify(new_token)).username
            except InvalidToken:
                return None  # an unknown key is refetched at most once per refresh interval

        assert await until(verifies_new_token, within=10 * REFRESH_INTERVAL, every=0.05) == "admin"
        assert verifier.keys.fetch_count == 2
        with pytest.raises(InvalidToken, match="token signed by an unknown key"):
            await verifier.verify(old_token)
    finally:
        if verifier is not None:
            await verifier.close()
        for provider in started:
            await provider.stop_async()
