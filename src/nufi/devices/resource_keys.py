"""The Kubernetes rules for extended-resource names, the `resource_key` of a device type.

The rules live with Kubernetes' other resource rules in `nufi.cluster.resources`; this module names
them for the device catalog and the wizard.
"""

from __future__ import annotations

from nufi.cluster.resources import (
    NAME_MAX_LENGTH,
    PREFIX_MAX_LENGTH,
    ResourceKeyProblem,
    ResourceKeyRule,
    is_valid_resource_key,
    resource_key_problems,
    resource_key_violations,
)

__all__ = [
    "NAME_MAX_LENGTH",
    "PREFIX_MAX_LENGTH",
    "ResourceKeyProblem",
    "ResourceKeyRule",
    "is_valid_resource_key",
    "resource_key_problems",
    "resource_key_violations",
]
