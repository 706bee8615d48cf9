"""The Authorization header: every malformed or hostile value is a 401, never a crash."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nufi.auth import NOT_CONFIGURED, InvalidToken, JwksCache, TokenVerifier, authenticate, bearer_token
from nufi.errors import Unauthorized

from .auth_helpers import ISSUER, KeyServer, TokenFactory


def test_the_token_is_taken_from_a_bearer_header() -> None:
    assert bearer_token("Bearer abc.def.ghi") == "abc.def.ghi"
    assert bearer_token("bearer   abc.def.ghi  ") == "abc.def.ghi"
    assert bearer_token("BEARER a-b_c~d+e/f==") == "a-b_c~d+e/f=="


@pytest.mark.parametrize("header", [None, "", "   "])
def test_no_header_is_a_plain_401_challenge(header: str | None) -> None:
    with pytest.raises(Unauthorized, match="missing bearer token") as refused:
        bearer_token(header)
    assert not isinstance(refused.value, InvalidToken)


def test_another_scheme_is_named_and_is_not_an_invalid_token() -> None:
    with pytest.raises(Unauthorized, match="'Basic' scheme") as refused:
        bearer_token("Basic YWRtaW46YWRtaW4=")
    assert not isinstance(refused.value, InvalidToken)


@pytest.mark.parametrize(
    "header", ["Bearer", "Bearer ", "Bearer a b", "Bearer a\tb", "Bearer é.x.y", "Bearer ==="]
)
def test_bearer_without_a_token_shaped_value_is_an_invalid_token(header: str) -> None:
    with pytest.raises(InvalidToken):
        bearer_token(header)


def test_an_oversized_token_is_refused_before_parsing() -> None:
    with pytest.raises(InvalidToken, match="longer than"):
        bearer_token("Bearer " + "a" * 20_000)


async def test_without_an_issuer_nobody_gets_in(tokens: TokenFactory) -> None:
    for header in (None, f"Bearer {tokens.sign()}"):
        with pytest.raises(Unauthorized) as refused:
            await authenticate(None, header)
        assert refused.value.detail == NOT_CONFIGURED
        assert "authentication is not configured" in refused.value.detail
        assert "NUFI_OIDC_ISSUER" in refused.value.detail


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
header_fields = st.fixed_dictionaries(
    {},
    optional={
        "alg": st.sampled_from(["RS256", "none", "HS256", "RS512", "ES256", ""]) | json_values,
        "kid": st.sampled_from(["sig-1", "enc-1", "nope", ""]) | json_values,
        "typ": st.just("JWT") | json_values,
        "crit": json_values,
    },
)
claim_fields = st.fixed_dictionaries(
    {},
    optional={
        "iss": st.just(ISSUER) | json_values,
        "exp": st.integers(min_value=-(2**63), max_value=2**63) | json_values,
        "nbf": st.integers() | json_values,
        "iat": st.integers() | json_values,
        "sub": json_values,
        "aud": json_values,
        "typ": json_values,
        "realm_access": json_values,
    },
)


@st.composite
def jwt_shaped(draw: st.DrawFn) -> str:
    """Three (or some other number of) base64url parts: headers and claims that almost make sense."""
    header = draw(header_fields | json_values)
    claims = draw(claim_fields | json_values)
    parts = [
        _b64(json.dumps(header).encode()),
        _b64(json.dumps(claims).encode()),
        _b64(draw(st.binary(max_size=300))),
    ]
    extra = draw(st.lists(st.sampled_from(["", "x", "e30", "."]), max_size=2))
    return ".".join(parts + extra)


authorization_headers = st.one_of(
    st.text(max_size=80),
    st.builds(lambda s: "Bearer " + s, st.text(max_size=80)),
    st.builds(lambda s: "Bearer " + s, st.text(alphabet="ABCxyz019-_.=+/~", max_size=120)),
    st.builds(lambda t: "Bearer " + t, jwt_shaped()),
    st.builds(lambda t: "bEaReR\t" + t, jwt_shaped()),
)


def _verify_header(key_server: KeyServer, header: str) -> BaseException | None:
    async def attempt() -> None:
        verifier = TokenVerifier(issuer=ISSUER, keys=JwksCache(key_server))
        await authenticate(verifier, header)

    try:
        asyncio.run(attempt())
    except BaseException as exc:
        return exc
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=authorization_headers)
def test_any_malformed_authorization_header_is_a_401(key_server: KeyServer, header: str) -> None:
    outcome = _verify_header(key_server, header)
    assert isinstance(outcome, Unauthorized), f"{header!r} gave {outcome!r}"
    assert outcome.status == 401
    assert outcome.detail


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    overrides=st.fixed_dictionaries(
        {},
        optional={
            "exp": st.integers(min_value=-(2**40), max_value=2**40) | st.text(max_size=4),
            "nbf": st.integers(min_value=-(2**40), max_value=2**40) | st.text(max_size=4),
            "iat": st.integers(min_value=-(2**40), max_value=2**40) | st.text(max_size=4),
            "iss": st.text(max_size=10),
            "typ": st.text(max_size=6),
            "aud": json_values,
            "sub": json_values,
        },
    )
)
def test_properly_signed_tokens_with_odd_claims_are_accepted_or_refused_with_401(
    key_server: KeyServer, tokens: TokenFactory, overrides: dict[str, Any]
) -> None:
    header = "Bearer " + tokens.sign(**overrides)
    outcome = _verify_header(key_server, header)
    assert outcome is None or isinstance(outcome, Unauthorized), f"{overrides!r} gave {outcome!r}"
