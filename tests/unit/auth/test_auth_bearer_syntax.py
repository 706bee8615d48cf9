"""The Bearer credentials' syntax (RFC 6750 §2.1, b64token), against the grammar spelled out by hand."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.auth import bearer_token
from nufi.auth.errors import InvalidToken

TOKEN_CHARACTERS = string.ascii_letters + string.digits + "-._~+/"


def b64token(text: str) -> bool:
    """1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" — the grammar, char by char."""
    body = text.rstrip("=")
    return bool(body) and all(c in TOKEN_CHARACTERS for c in body)


@given(st.text(alphabet=TOKEN_CHARACTERS + "=é \\t,;\"'*%\\x00", min_size=1, max_size=40))
def test_a_token_is_accepted_exactly_when_the_grammar_allows_it(text: str) -> None:
    if text != text.strip():
        return  # surrounding blanks belong to the header, not the token
    try:
        token = bearer_token(f"Bearer {text}")
    except InvalidToken:
        assert not b64token(text)
    else:
        assert b64token(text) and token == text


@pytest.mark.parametrize("text", ["abc==", "a.b.c", "x" * 4096, "A-Z_a~z+0/9="])
def test_tokens_the_grammar_allows(text: str) -> None:
    assert bearer_token(f"Bearer {text}") == text


@pytest.mark.parametrize("text", ["=abc", "a=b", "ä", "a\\nb", "a,b"])
def test_tokens_it_refuses(text: str) -> None:
    with pytest.raises(InvalidToken):
        bearer_token(f"Bearer {text}")
