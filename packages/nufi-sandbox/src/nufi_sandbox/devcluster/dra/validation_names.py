"""The names of DRA objects' fields, checked as `pkg/apis/resource/validation` checks them.

Driver names follow CSI driver names (a DNS subdomain of at most 63 characters), pool names are
subdomains joined by `/`, device and request names are DNS labels, and attribute or capacity names are
`<domain>/<C identifier>` or a bare C identifier of at most 32 characters.
"""

from __future__ import annotations

import re

from nufi_sandbox.devcluster.dra.objects import DEVICE_MAX_ID, DRIVER_NAME_MAX, POOL_NAME_MAX
from nufi_sandbox.devcluster.validation.field_causes import Cause, invalid, required, too_long
from nufi_sandbox.devcluster.validation.names import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    regex_error,
)

_C_IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_MESSAGE = (
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'"
)


def label_causes(value: str, path: str) -> list[Cause]:
    """`ValidateDNS1123Label`: device, request and counter names."""
    return [invalid(path, value, msg) for msg in dns1123_label_errors(value)]


def subdomain_causes(value: str, path: str) -> list[Cause]:
    """`ValidateDNS1123Subdomain`: device class names, node names."""
    return [invalid(path, value, msg) for msg in dns1123_subdomain_errors(value)]


def driver_name_causes(name: str, path: str) -> list[Cause]:
    """`ValidateCSIDriverName`, which DRA reuses: an empty name is both required and malformed."""
    causes = [required(path)] if not name else []
    if len(name) > DRIVER_NAME_MAX:
        causes.append(too_long(path, DRIVER_NAME_MAX))
    causes += [invalid(path, name, msg) for msg in dns1123_subdomain_errors(name.lower())]
    return causes


def pool_name_causes(name: str, path: str) -> list[Cause]:
    if not name:
        return [required(path)]
    causes = [too_long(path, POOL_NAME_MAX)] if len(name) > POOL_NAME_MAX else []
    for part in name.split("/"):
        causes += subdomain_causes(part, path)
    return causes


def c_identifier_causes(value: str, path: str) -> list[Cause]:
    causes = [too_long(path, DEVICE_MAX_ID)] if len(value) > DEVICE_MAX_ID else []
    if not re.fullmatch(_C_IDENTIFIER, value):
        detail = regex_error(_C_IDENTIFIER_MESSAGE, _C_IDENTIFIER, "my_name", "MY_NAME", "MyName")
        causes.append(invalid(path, value, detail))
    return causes


def qualified_name_causes(name: str, path: str) -> list[Cause]:
    """An attribute or capacity name: `<domain>/<id>` or a bare id (the driver's own domain)."""
    parts = name.split("/")
    if len(parts) == 1:
        return c_identifier_causes(name, path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    domain, ident = parts
    causes = (
        driver_name_causes(domain, path) if domain else [invalid(path, "", "the domain must not be empty")]
    )
    causes += c_identifier_causes(ident, path) if ident else [invalid(path, "", "the name must not be empty")]
    return causes


def fully_qualified_name_causes(name: str, path: str) -> list[Cause]:
    """A constraint's attribute: a qualified name that must carry its domain."""
    causes = qualified_name_causes(name, path)
    if "/" not in name:
        causes.append(
            invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash")
        )
    return causes
