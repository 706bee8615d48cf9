"""Sign-in and token refusals are codes with params, worded in Korean or English; the API answers
in the caller's language."""

from __future__ import annotations

import pytest

from nufi.auth import Principal, bearer_token
from nufi.auth.bearer import single_authorization
from nufi.auth.errors import AmbiguousCredentials, InvalidToken
from nufi.auth.policy import require_admin
from nufi.errors import Forbidden, Unauthorized
from support.languages import korean_of

pytestmark = pytest.mark.unit


def test_a_missing_token_says_what_to_send() -> None:
    with pytest.raises(Unauthorized) as caught:
        bearer_token(None)
    assert caught.value.code == "auth.bearer_missing"
    assert (
        korean_of(caught.value)
        == "Bearer 토큰이 없습니다. 'Authorization: Bearer <access token>' 헤더를 보내세요"
    )


def test_another_scheme_is_named() -> None:
    with pytest.raises(Unauthorized) as caught:
        bearer_token("Basic abc")
    assert (caught.value.code, caught.value.params) == ("auth.scheme_wrong", {"scheme": "Basic"})
    assert "the 'Basic' scheme" in caught.value.detail
    assert korean_of(caught.value).startswith("Authorization 헤더가 'Basic' 방식입니다")


def test_a_token_too_long_names_the_bound() -> None:
    with pytest.raises(InvalidToken) as caught:
        bearer_token("Bearer " + "a" * 20_000)
    assert caught.value.code == "auth.token_too_long" and caught.value.params == {"max": 16 * 1024}
    assert "16384자보다 깁니다" in korean_of(caught.value)


def test_two_authorization_headers_are_counted() -> None:
    with pytest.raises(AmbiguousCredentials) as caught:
        single_authorization(["Bearer a", "Bearer b"])
    assert caught.value.params == {"count": 2} and "헤더가 2개 있습니다" in korean_of(caught.value)


def test_an_admin_route_names_the_role_and_the_user() -> None:
    user = Principal(subject="s", username="ada", roles=frozenset(), admin_role="nufi-admin")
    with pytest.raises(Forbidden) as caught:
        require_admin(user)
    assert caught.value.code == "auth.role_required"
    assert caught.value.params == {"required_role": "nufi-admin", "user": "ada"}
    assert caught.value.detail.startswith("requires role nufi-admin: user 'ada' does not have it")
    assert korean_of(caught.value).startswith("nufi-admin 역할이 필요합니다. 사용자 'ada'에게는")
