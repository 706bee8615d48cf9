"""Which ServiceAccount NuFi acts as: configured, read from the pod's token, or none."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.cluster.connection import KubeSource
from nufi.cluster.service_account import ServiceAccountRef, own_service_account, service_account_of

pytestmark = pytest.mark.unit
IN_CLUSTER = KubeSource("in-cluster")


def _token(claims: object) -> str:
    def part(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part(claims)}.c2lnbmF0dXJl"


def test_in_a_pod_the_token_names_the_service_account(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(_token({"sub": "system:serviceaccount:nufi-system:nufi", "aud": ["x"]}) + "\n")
    assert own_service_account(IN_CLUSTER, None, token) == ServiceAccountRef("nufi-system", "nufi")


def test_the_configured_one_wins_and_a_kubeconfig_has_none(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(_token({"sub": "system:serviceaccount:a:b"}))
    assert own_service_account(IN_CLUSTER, "ops/nufi", token) == ServiceAccountRef("ops", "nufi")
    kubeconfig = KubeSource("kubeconfig", path=tmp_path / "config")
    assert own_service_account(kubeconfig, None, token) is None
    assert own_service_account(None, None, token) is None
    assert own_service_account(IN_CLUSTER, None, tmp_path / "missing") is None


@pytest.mark.parametrize("text", ["", "nufi", "/nufi", "ns/", "a/b/c"])
def test_a_configured_account_must_be_namespace_slash_name(text: str) -> None:
    with pytest.raises(ValueError, match="<namespace>/<name>"):
        ServiceAccountRef.parse(text)


@given(st.text())
def test_any_token_text_gives_an_account_or_none_never_an_error(text: str) -> None:
    found = service_account_of(text)
    assert found is None or (found.namespace and found.name)


@given(st.one_of(st.text(), st.integers(), st.none(), st.lists(st.text())))
def test_a_token_whose_subject_is_not_a_service_account_gives_none(subject: object) -> None:
    if isinstance(subject, str) and subject.startswith("system:serviceaccount:"):
        return
    assert service_account_of(_token({"sub": subject})) is None
