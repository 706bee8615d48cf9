"""A refused name or request carries a code and the values it names, and reads as Korean with no
English sentence in it; the request model's own checks carry the same codes (pydantic custom errors)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from nufi.errors import NufiError, ValidationFailed
from nufi.messages.validation import validation_message
from nufi.workloads.deployments.spec import DeploymentCreate
from nufi.workloads.labs.service import _check_lab_name
from nufi.workloads.names import check_env_name, check_name, check_stored_username, check_username
from support.languages import english_sentences

pytestmark = pytest.mark.unit


def _refused(check: Any, value: str, field: str = "name") -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        check(value, field=field)
    return caught.value


def _lab_name(value: str, *, field: str) -> str:
    return _check_lab_name(value)


def _korean(exc: NufiError) -> str:
    text = exc.text("ko")
    assert any("\uac00" <= ch <= "\ud7a3" for ch in text), text
    assert english_sentences(text) == [], text
    return text


@pytest.mark.parametrize(
    ("value", "code", "params"),
    [
        ("", "name.required", {"field": "name"}),
        ("Llama_Serve", "name.not_dns_label", {"field": "name", "value": "Llama_Serve"}),
        ("a" * 70, "name.too_long", {"field": "name", "head": "a" * 20, "length": 70, "most": 63}),
    ],
)
def test_a_bad_workload_name_carries_its_code_and_reads_in_korean(
    value: str, code: str, params: dict[str, object]
) -> None:
    exc = _refused(check_name, value)
    assert (exc.code, exc.params, exc.field) == (code, params, "name")
    _korean(exc)


def test_the_korean_sentence_names_the_value_and_the_rule() -> None:
    exc = _refused(check_name, "Llama_Serve")
    assert exc.text("ko") == (
        "name 값 'Llama_Serve'은(는) DNS-1123 레이블이 아닙니다. 영문 소문자, 숫자, '-'만 쓰고 "
        "영문자나 숫자로 시작하고 끝나야 합니다(예: 'llama-serve')."
    )
    # The English stays as it was.
    assert exc.detail.startswith("name 'Llama_Serve' is not a DNS-1123 label")


@pytest.mark.parametrize(
    ("check", "value", "code"),
    [
        (check_username, "", "username.required"),
        (check_username, "Kim", "username.capitals"),
        (check_username, "kim jiwoo", "username.bad_characters"),
        (check_username, "k" * 300, "username.too_long"),
        (check_stored_username, "", "username.length"),
        (check_env_name, "", "env_name.length"),
        (check_env_name, "1ST", "env_name.invalid"),
        (_lab_name, "1lab", "lab.name_needs_letter"),
        (_lab_name, "l" * 60, "lab.name_too_long"),
    ],
)
def test_usernames_env_names_and_lab_names_carry_codes_and_read_in_korean(
    check: Any, value: str, code: str
) -> None:
    exc = _refused(check, value, "members.0")
    assert exc.code == code
    _korean(exc)


def test_capitals_name_the_lower_case_form_in_korean_too() -> None:
    exc = _refused(check_username, "Kim", "username")
    assert exc.params["lower"] == "kim"
    assert "'kim'을(를) 쓰세요" in _korean(exc)


def test_the_request_models_checks_carry_catalog_codes() -> None:
    with pytest.raises(ValidationError) as caught:
        DeploymentCreate.model_validate(
            {
                "name": "Bad_Name",
                "image": "vllm/vllm 0.6",
                "accelerator": {"device_type": "lpu", "count": 1},
                "readiness_path": "health",
                "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
            }
        )
    messages = {str(error["loc"][0]): validation_message(error) for error in caught.value.errors()}
    assert {field: m.code for field, m in messages.items()} == {
        "name": "name.not_dns_label",
        "image": "deployment.image_invalid",
        "readiness_path": "deployment.readiness_path_invalid",
        "env": "deployment.env_duplicate",
    }
    assert messages["name"].params["value"] == "Bad_Name"
    assert messages["env"].params == {"name": "A"}
    for message in messages.values():
        text = message.text("ko")
        assert english_sentences(text) == [], text
