"""Kubernetes `Status` errors, shaped and worded like the real API server's."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.resources import ResourceType


class ApiError(Exception):
    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details is not None:
            body["details"] = self.details
        return body


def _qualified(rt: ResourceType) -> str:
    return f"{rt.plural}.{rt.group}" if rt.group else rt.plural


def _details(rt: ResourceType, name: str, **extra: Any) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name, "kind": rt.plural, **extra}
    if rt.group:
        details["group"] = rt.group
    return details


def not_found(rt: ResourceType, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{_qualified(rt)} "{name}" not found', details=_details(rt, name))


def already_exists(rt: ResourceType, name: str) -> ApiError:
    return ApiError(
        409, "AlreadyExists", f'{_qualified(rt)} "{name}" already exists', details=_details(rt, name)
    )


def conflict(rt: ResourceType, name: str) -> ApiError:
    return ApiError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {_qualified(rt)} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again",
        details=_details(rt, name),
    )


def invalid(rt: ResourceType, name: str, message: str, causes: list[dict[str, Any]]) -> ApiError:
    return ApiError(422, "Invalid", message, details=_details(rt, name, kind=rt.kind, causes=causes))


def forbidden(rt: ResourceType, name: str, reason: str) -> ApiError:
    """An admission plugin's refusal (`admission.NewForbidden`): `pods "x" is forbidden: <reason>`."""
    head = f'{_qualified(rt)} "{name}"' if name else _qualified(rt)
    return ApiError(403, "Forbidden", f"{head} is forbidden: {reason}", details=_details(rt, name))


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def gone(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def method_not_allowed(
    message: str = "the server does not allow this method on the requested resource",
) -> ApiError:
    return ApiError(405, "MethodNotAllowed", message)


def unsupported_media_type(content_type: str) -> ApiError:
    return ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - "
        f"accepted media types include: application/json-patch+json, "
        f"application/merge-patch+json, application/strategic-merge-patch+json "
        f"(got {content_type!r})",
    )


def unsupported_body() -> ApiError:
    """A create or update body in an encoding the server holds no schema for (protobuf of a custom type)."""
    return ApiError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml",
    )


def namespace_missing(namespace: str) -> ApiError:
    return ApiError(
        404,
        "NotFound",
        f'namespaces "{namespace}" not found',
        details={"name": namespace, "kind": "namespaces"},
    )


def route_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource", details={})
