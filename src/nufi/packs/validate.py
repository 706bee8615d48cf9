"""Raw pack documents into models, or a refusal naming the offending field by its path in the pack
(`documents[0].spec.metrics.tempreature`) and saying how to fix it."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from nufi.errors import ValidationFailed
from nufi.messages.validation import validation_message
from nufi.packs.model import DevicePack


def validated_packs(documents: Sequence[object]) -> list[DevicePack]:
    """Every document as a model; the first invalid one is refused (422) with its field's path, and
    a device type given twice is refused too."""
    packs = [validated_pack(index, document) for index, document in enumerate(documents)]
    first_at: dict[str, int] = {}
    for index, pack in enumerate(packs):
        if pack.name in first_at:
            raise ValidationFailed(
                code="pack.duplicate_name",
                field=f"documents[{index}].metadata.name",
                params={"name": pack.name, "first": f"documents[{first_at[pack.name]}]"},
            )
        first_at[pack.name] = index
    return packs


def validated_pack(index: int, document: object) -> DevicePack:
    try:
        return DevicePack.model_validate(document)
    except ValidationError as exc:
        errors = exc.errors()
        raise refusal(index, errors[0], len(errors)) from None


def refusal(index: int, error: ErrorDetails, count: int = 1) -> ValidationFailed:
    loc = tuple(error["loc"])
    path = field_path(index, loc)
    more = {"more": count - 1} if count > 1 else {}
    if error["type"] == "extra_forbidden":
        allowed = allowed_fields(loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.6)
        if close:
            return ValidationFailed(
                code="pack.unknown_field_suggest",
                field=path,
                params={"path": path, "suggestion": close[0], **more},
            )
        return ValidationFailed(
            code="pack.unknown_field",
            field=path,
            params={"path": path, "allowed": ", ".join(allowed), **more},
        )
    reason = validation_message(error).to_data()
    return ValidationFailed(
        code="pack.invalid_field", field=path, params={"path": path, "reason": reason, **more}
    )


def field_path(index: int, loc: Sequence[int | str]) -> str:
    """`documents[0].spec.labels`: list positions in brackets, names after dots."""
    path = f"documents[{index}]"
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def allowed_fields(loc: Sequence[int | str]) -> list[str]:
    """The field names the model at `loc` (a path of field names from a pack document) accepts."""
    model: type[BaseModel] | None = DevicePack
    for part in loc:
        if model is None:
            return []
        model = _field_model(model, str(part))
    if model is None:
        return []
    return [field.alias or name for name, field in model.model_fields.items()]


def _field_model(model: type[BaseModel], name: str) -> type[BaseModel] | None:
    for field_name, field in model.model_fields.items():
        if name in (field_name, field.alias):
            return _model_in(field.annotation)
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            found = _model_in(member)
            if found is not None:
                return found
    return None
