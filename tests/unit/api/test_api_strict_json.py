"""Where the first number of a request body that is not finite is: by its path, in document order,
whatever the nesting; nothing for a body with finite numbers only, or one that is not JSON."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi.api.edge.strict_json import first_non_finite

FINITE: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)
TOKENS = {
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
    "1e400": math.inf,
    "-1e999": -math.inf,
}


@given(FINITE)
def test_finite_bodies_hold_nothing_to_refuse(document: Any) -> None:
    assert first_non_finite(json.dumps(document).encode()) is None


@given(FINITE, st.data(), st.sampled_from(sorted(TOKENS)))
def test_a_non_finite_token_anywhere_is_found_at_its_path(
    document: Any, data: st.DataObject, token: str
) -> None:
    # Put a marker at a path chosen inside the document, then write the token where it stands.
    marker = "\u2063MARK\u2063"
    wrapper: dict[str, Any] = {"root": document}
    holder: Any = wrapper
    key: str | int = "root"
    path: list[str | int] = []
    while isinstance(holder[key], dict | list) and holder[key] and data.draw(st.booleans()):
        inner = holder[key]
        key = data.draw(st.sampled_from(sorted(inner) if isinstance(inner, dict) else range(len(inner))))
        holder, path = inner, [*path, key]
    holder[key] = marker
    body = json.dumps(wrapper).replace(json.dumps(marker), token).encode()
    found = first_non_finite(body)
    assert found is not None
    where, value = found
    assert where == ("root", *path)
    assert math.isnan(value) if token == "NaN" else value == TOKENS[token]


def test_the_first_in_document_order_is_named() -> None:
    body = b'{"a": [1, 2, {"b": NaN}], "c": Infinity}'
    found = first_non_finite(body)
    assert found is not None and found[0] == ("a", 2, "b") and math.isnan(found[1])
    assert first_non_finite(b'{"c": -Infinity, "a": NaN}') == (("c",), -math.inf)


def test_a_body_that_is_not_json_is_left_to_fastapi() -> None:
    for body in (b"", b"{", b"[" * 5000, b"\xff", b"1" * 5000):
        assert first_non_finite(body) is None
