"""The names workloads accept: DNS-1123 labels for projects and workloads, usernames, env names."""

from __future__ import annotations

import re

from nufi.errors import ValidationFailed

NAME_MAX_LENGTH = 63
USERNAME_MAX_LENGTH = 255
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
# Keycloak's characters for a username, ASCII only and lower-case as Keycloak stores them.
_USERNAME = re.compile(r"[a-z0-9._@-]+")
# What a container's env var name may be: a C identifier, the portable shell rule. Kubernetes is
# laxer today, but names outside it break the shells most images start their servers from.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENV_NAME_MAX_LENGTH = 253


def is_name(value: str) -> bool:
    """Whether `value` is a DNS-1123 label (what check_name accepts)."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= NAME_MAX_LENGTH
        and _DNS1123_LABEL.fullmatch(value) is not None
    )


def check_name(value: str, *, field: str) -> str:
    """`value` when it is a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and
    ending with a letter or digit); otherwise ValidationFailed naming `field`."""
    if not isinstance(value, str) or not value:
        raise ValidationFailed(code="name.required", field=field)
    if len(value) > NAME_MAX_LENGTH:
        raise ValidationFailed(
            code="name.too_long",
            field=field,
            params={"head": value[:20], "length": len(value), "most": NAME_MAX_LENGTH},
        )
    if _DNS1123_LABEL.fullmatch(value) is None:
        raise ValidationFailed(code="name.not_dns_label", field=field, params={"value": value})
    return value


def check_username(value: str, *, field: str) -> str:
    """A username as Keycloak issues it (`preferred_username`): 1..255 characters of ASCII lowercase
    letters, digits, '.', '_', '-' and '@'.

    Keycloak stores every username lower-cased, so a capital letter can never match a person who
    signs in; it is refused rather than folded, so that `Kim` and `kim` never both appear to name
    someone. Letters outside ASCII are refused too: the Cyrillic U+0430 looks like a Latin 'a', and a
    member list must not hold two names a person cannot tell apart.
    """
    if not isinstance(value, str) or not value:
        raise ValidationFailed(code="username.required", field=field)
    if len(value) > USERNAME_MAX_LENGTH:
        raise ValidationFailed(
            code="username.too_long", field=field, params={"length": len(value), "most": USERNAME_MAX_LENGTH}
        )
    if _USERNAME.fullmatch(value) is not None:
        return value
    if value.isascii() and _USERNAME.fullmatch(value.lower()) is not None:
        raise ValidationFailed(
            code="username.capitals", field=field, params={"value": value, "lower": value.lower()}
        )
    raise ValidationFailed(code="username.bad_characters", field=field, params={"value": value})


def check_stored_username(value: str, *, field: str) -> str:
    """A username as a member list may already hold it: written before usernames were checked as
    strictly as check_username does, and still removable."""
    if not isinstance(value, str) or not value or len(value) > USERNAME_MAX_LENGTH:
        raise ValidationFailed(code="username.length", field=field, params={"most": USERNAME_MAX_LENGTH})
    return value


def check_env_name(value: str, *, field: str) -> str:
    """An environment variable name: a letter or '_' then letters, digits and '_'."""
    if not isinstance(value, str) or not value or len(value) > ENV_NAME_MAX_LENGTH:
        raise ValidationFailed(code="env_name.length", field=field, params={"most": ENV_NAME_MAX_LENGTH})
    if _ENV_NAME.fullmatch(value) is None:
        raise ValidationFailed(code="env_name.invalid", field=field, params={"value": value})
    return value
