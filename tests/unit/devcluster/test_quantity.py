"""Resource quantities parse, round-trip and judge integers the way the API server does."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.validation.quantity import (
    FORMAT_MESSAGE,
    SUFFIX_MESSAGE,
    QuantityError,
    QuantityFormat,
    format_quantity,
    is_integer_quantity,
    parse_quantity,
    parse_quantity_with_format,
)

BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


@pytest.mark.parametrize(
    ("text", "value", "canonical"),
    [
        ("1", "1", "1"),
        ("1500m", "1.5", "1500m"),
        ("1000m", "1", "1"),
        ("2Gi", str(2 * 1024**3), "2Gi"),
        ("2048Ki", str(2 * 1024**2), "2Mi"),
        ("0.5Gi", str(512 * 1024**2), "512Mi"),
        ("1536", "1536", "1536"),
        ("1e3", "1000", "1e3"),
        ("1E3", "1000", "1e3"),
        ("12e6", "12000000", "12e6"),
        ("+4", "4", "4"),
        ("-2.5k", "-2500", "-2500"),
        ("0.1", "0.1", "100m"),
        (".5", "0.5", "500m"),
        ("5.", "5", "5"),
        ("1u", "0.000001", "1u"),
        ("1e-12", "0.000000001", "1e-9"),
        ("0", "0", "0"),
        ("0Ki", "0", "0"),
    ],
)
def test_parse_and_canonical_form(text: str, value: str, canonical: str) -> None:
    assert parse_quantity(text) == Decimal(value)
    assert format_quantity(*parse_quantity_with_format(text)) == canonical


def test_finer_than_nano_rounds_up_so_a_request_never_becomes_zero() -> None:
    assert parse_quantity("0.1n") == Decimal("1e-9")
    assert parse_quantity("-1.0000000001") == Decimal("-1.000000001")


def test_binary_quantities_are_capped_at_int64() -> None:
    assert parse_quantity("10Ei") == Decimal(2**63 - 1)


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "1 ", " 1", "--1", "+-1", "Ki", "1,5", "1KI"])
def test_malformed_text_gets_the_regex_message(text: str) -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert str(caught.value) == FORMAT_MESSAGE
    assert "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$" in str(caught.value)


@pytest.mark.parametrize("text", ["1K", "1e", "1Ki5", "1mi", "1e99999999999"])
def test_unknown_suffix_is_rejected(text: str) -> None:
    with pytest.raises(QuantityError, match="^" + SUFFIX_MESSAGE + "$"):
        parse_quantity(text)


@pytest.mark.parametrize(
    ("text", "integer"),
    [("3", True), ("3000m", True), ("3Ki", True), ("0.5", False), ("1500m", False), ("1n", False)],
)
def test_integer_rule(text: str, integer: bool) -> None:
    assert is_integer_quantity(text) is integer
    assert is_integer_quantity(parse_quantity(text)) is integer


def test_integer_rule_rounds_milli_values_up_like_the_api_server() -> None:
    # MilliValue() rounds 999.9m up to 1000m, so the server accepts this for extended resources.
    assert is_integer_quantity("0.9999")
    assert not is_integer_quantity("0.9989")


def test_formats_are_reported() -> None:
    assert parse_quantity_with_format("1Gi")[1] is QuantityFormat.BINARY_SI
    assert parse_quantity_with_format("1G")[1] is QuantityFormat.DECIMAL_SI
    assert parse_quantity_with_format("1e9")[1] is QuantityFormat.DECIMAL_EXPONENT
    # A binary quantity below one unit falls back to decimal, as in the API server.
    assert parse_quantity_with_format("0.0001Ki")[1] is QuantityFormat.DECIMAL_SI


@given(st.integers(min_value=0, max_value=2**40), st.sampled_from(sorted(BINARY)))
def test_integer_binary_multiples_parse_exactly(number: int, suffix: str) -> None:
    value = parse_quantity(f"{number}{suffix}")
    expected = min(number * 1024 ** BINARY[suffix], 2**63 - 1)
    assert value == expected
    assert is_integer_quantity(value)


@given(st.integers(min_value=-(10**12), max_value=10**12), st.sampled_from(sorted(DECIMAL)))
def test_decimal_si_multiples_parse_exactly(number: int, suffix: str) -> None:
    value = parse_quantity(f"{number}{suffix}")
    assert value == Decimal(number).scaleb(DECIMAL[suffix])


@given(st.integers(min_value=0, max_value=10**9))
def test_milli_quantity_is_integer_exactly_when_divisible_by_1000(milli: int) -> None:
    assert is_integer_quantity(f"{milli}m") is (milli % 1000 == 0)


quantity_texts = st.builds(
    lambda sign, whole, fraction, suffix: f"{sign}{whole}{fraction}{suffix}",
    st.sampled_from(["", "+", "-"]),
    st.integers(min_value=0, max_value=10**15).map(str),
    st.one_of(st.just(""), st.integers(min_value=0, max_value=10**6).map(lambda f: f".{f}")),
    st.sampled_from([*BINARY, *DECIMAL, "e3", "E-2", "e+6"]),
)


@given(quantity_texts)
def test_canonical_text_is_a_fixed_point_with_the_same_value(text: str) -> None:
    canonical = format_quantity(*parse_quantity_with_format(text))
    assert format_quantity(*parse_quantity_with_format(canonical)) == canonical
    assert parse_quantity(canonical) == parse_quantity(text)


@given(st.decimals(allow_nan=False, allow_infinity=False, places=9, min_value=-(10**9), max_value=10**9))
def test_format_then_parse_preserves_value(value: Decimal) -> None:
    assert parse_quantity(format_quantity(value)) == value


@given(st.text(alphabet="0123456789.+-eEinumkKMGTP x", max_size=12))
def test_arbitrary_text_either_parses_or_raises_quantity_error(text: str) -> None:
    try:
        value = parse_quantity(text)
    except QuantityError:
        return
    assert value.is_finite()
