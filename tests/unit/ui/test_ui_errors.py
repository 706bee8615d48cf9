"""The one error mapper: a failed action as the person is told of it, headline, words and field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from nufi.errors import Conflict, DependencyUnavailable, Forbidden, NotFound, NufiError, ValidationFailed
from nufi.ui.i18n import Translator, text
from nufi.ui.parts.errors import Area, field_of, told

EN = Translator("en")


class _Form(BaseModel):
    replicas: int


@pytest.mark.parametrize(
    ("error", "workloads", "devices"),
    [
        (
            ValidationFailed(code="name.required", field="name"),
            "workloads.error.invalid",
            "devices.error.invalid",
        ),
        (
            Conflict(code="project.name_taken", project="p"),
            "workloads.error.conflict",
            "devices.error.conflict",
        ),
        (
            NotFound(code="device_type.not_found", params={"device_type": "x"}),
            "workloads.error.not_found",
            "devices.error.not_found",
        ),
        (Forbidden(code="auth.sign_in_first"), "workloads.error.forbidden", "devices.error.forbidden"),
        (
            DependencyUnavailable(code="kube.not_configured", dependency="kubernetes"),
            "workloads.error.failed",
            "devices.error.unavailable",
        ),
        (
            NufiError(code="http.status", params={"status": 418}),
            "workloads.error.failed",
            "devices.error.unexpected",
        ),
    ],
)
def test_a_domain_error_is_a_headline_per_area_with_the_services_words(
    error: NufiError, workloads: str, devices: str
) -> None:
    areas: tuple[tuple[Area, str], ...] = (("workloads", workloads), ("devices", devices))
    for area, key in areas:
        said = told(EN, error, area)
        assert said.headline == text("en", key)
        assert said.detail == error.detail
        assert said.line == f"{text('en', key)} {error.detail}"


def test_the_field_an_error_names_travels_with_its_words() -> None:
    too_many = ValidationFailed(code="name.required", field="accelerator.count")
    assert told(EN, too_many).fields == (("accelerator.count", too_many.detail),)
    # In the reader's language: the same field, the Korean sentence.
    assert told(Translator("ko"), too_many).fields == (("accelerator.count", too_many.text("ko")),)
    assert field_of(Conflict(code="auth.sign_in_first", field="name")) == "name"
    assert field_of(NotFound(code="auth.sign_in_first")) is None


def test_a_forms_own_model_names_each_field_it_refuses() -> None:
    with pytest.raises(ValidationError) as refused:
        _Form.model_validate({"replicas": "many"})
    said = told(EN, refused.value, form=True)
    assert said.headline == text("en", "workloads.error.invalid")
    assert [field for field, _ in said.fields] == ["replicas"]


@pytest.mark.parametrize("area", ["workloads", "devices"])
def test_anything_else_is_unexpected_and_shows_no_stack(area: Area) -> None:
    try:
        raise RuntimeError("a stack trace nobody should read")
    except RuntimeError as exc:
        said = told(EN, exc, area)
    assert said.unexpected and said.detail == "" and said.fields == ()
    assert said.line == said.headline == text("en", f"{area}.error.unexpected")
    with pytest.raises(ValidationError) as refused:
        _Form.model_validate({"replicas": "many"})
    assert told(EN, refused.value, area).unexpected  # outside a form: a service's bug
