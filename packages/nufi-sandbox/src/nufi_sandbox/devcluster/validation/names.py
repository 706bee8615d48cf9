"""Name and label syntax of apimachinery's util/validation, worded as the API server words it.

Selectors are where label syntax is first enforced; object validation and the node specs reuse it.
"""

from __future__ import annotations

import json
import re

_QNAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_QNAME_RE = re.compile(_QNAME_PART)


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """The API server's wording for a regex failure, double spaces included."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def _syntax_errors(value: str, max_len: int, pattern: str, message: str, *examples: str) -> list[str]:
    """The length error, then the regex error, each when it applies: the order the server lists them."""
    errors = [max_len_error(max_len)] if len(value) > max_len else []
    if not re.fullmatch(pattern, value):
        errors.append(regex_error(message, pattern, *examples))
    return errors


def dns1123_subdomain_errors(value: str) -> list[str]:
    return _syntax_errors(
        value,
        253,
        _DNS1123_SUBDOMAIN,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
        "'-' or '.', and must start and end with an alphanumeric character",
        "example.com",
    )


_QNAME_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


def qualified_name_errors(value: str) -> list[str]:
    """Errors for a label key / annotation key / condition type (`IsQualifiedName`)."""
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        return [
            "a qualified name "
            + regex_error(_QNAME_MESSAGE, _QNAME_PART, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + msg for msg in dns1123_subdomain_errors(prefix))
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part " + max_len_error(63))
    if not _QNAME_RE.fullmatch(name):
        errors.append("name part " + regex_error(_QNAME_MESSAGE, _QNAME_PART, "MyName", "my.name", "123-abc"))
    return errors


def label_value_errors(value: str) -> list[str]:
    return _syntax_errors(
        value,
        63,
        _LABEL_VALUE,
        "a valid label must be an empty string or consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric character",
        "MyValue",
        "my_value",
        "12345",
    )


def dns1123_label_errors(value: str) -> list[str]:
    return _syntax_errors(
        value,
        63,
        _DNS1123_LABEL,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character",
        "my-name",
        "123-abc",
    )


def dns1035_label_errors(value: str) -> list[str]:
    return _syntax_errors(
        value,
        63,
        _DNS1035_LABEL,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
        "start with an alphabetic character, and end with an alphanumeric character",
        "my-name",
        "abc-123",
    )


def go_quote(value: str) -> str:
    """Close enough to Go's %q for the strings that appear in API messages."""
    return json.dumps(value, ensure_ascii=False)
