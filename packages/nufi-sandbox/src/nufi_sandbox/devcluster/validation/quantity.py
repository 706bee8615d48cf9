"""Kubernetes resource quantities (`resource.Quantity`): parsing, canonical text, integer rule."""

from __future__ import annotations

import re
from decimal import MAX_EMAX, MIN_EMIN, ROUND_UP, Context, Decimal
from enum import StrEnum

FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC_MESSAGE = "unable to parse numeric part of quantity"
SUFFIX_MESSAGE = "unable to parse quantity's suffix"


class QuantityError(ValueError):
    """A quantity string the API server refuses to decode."""


class QuantityFormat(StrEnum):
    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {0: "", **{exp: suffix for suffix, exp in _BINARY_SUFFIXES.items()}}

# Sign, integer digits, optional fraction, then the suffix the way the Go scanner reads it.
_SHAPE = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")
_INT32 = (-(2**31), 2**31 - 1)
_NANO = Decimal(1).scaleb(-9)
# The API server caps binary quantities at the largest int64.
_MAX_BINARY = Decimal(2**63 - 1)


def _context(text: str) -> Context:
    # Wide enough that no digit of any input is ever rounded away.
    return Context(prec=len(text) + 64, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _suffix(suffix: str) -> tuple[int, int, QuantityFormat]:
    """(base, exponent, format) for a suffix, as the API server's suffixer interprets it."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], QuantityFormat.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], QuantityFormat.BINARY_SI
    match = _EXPONENT.fullmatch(suffix)
    if match:
        exponent = int(match.group(1))
        if _INT32[0] <= exponent <= _INT32[1]:
            return 10, exponent, QuantityFormat.DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_MESSAGE)


def _round_up_to_nano(magnitude: Decimal, ctx: Context) -> Decimal:
    # Anything finer than a nano-unit rounds up so a request never silently becomes zero.
    exponent = magnitude.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -9:
        return magnitude.quantize(_NANO, rounding=ROUND_UP, context=ctx)
    return magnitude


def parse_quantity_with_format(text: str) -> tuple[Decimal, QuantityFormat]:
    """The exact value of a quantity and the format its canonical text keeps."""
    if not isinstance(text, str) or not text:
        raise QuantityError(FORMAT_MESSAGE)
    shape = _SHAPE.fullmatch(text)
    if shape is None:
        raise QuantityError(FORMAT_MESSAGE)
    sign, whole, fraction, suffix = shape.groups()
    if not whole and not fraction:
        if fraction is None:
            raise QuantityError(FORMAT_MESSAGE)
        raise QuantityError(NUMERIC_MESSAGE)
    base, exponent, fmt = _suffix(suffix)
    ctx = _context(text)
    value = Decimal(sign + (whole or "0") + ("." + fraction if fraction else ""))
    try:
        value = value.scaleb(exponent, ctx) if base == 10 else ctx.multiply(value, Decimal(2**exponent))
        magnitude = _round_up_to_nano(abs(value), ctx)
    except ArithmeticError:
        # Exponents beyond what any quantity can hold: the API server refuses these as numeric errors.
        raise QuantityError(NUMERIC_MESSAGE) from None
    if fmt is QuantityFormat.BINARY_SI:
        magnitude = min(magnitude, _MAX_BINARY)
        if 0 < magnitude < 1:
            fmt = QuantityFormat.DECIMAL_SI
    return (-magnitude if value < 0 else magnitude), fmt


def parse_quantity(text: str) -> Decimal:
    """Parse `1500m`, `2Gi`, `1e3`, `+4`...; raises QuantityError with the API server's message."""
    return parse_quantity_with_format(text)[0]


def format_quantity(value: Decimal, fmt: QuantityFormat = QuantityFormat.DECIMAL_SI) -> str:
    """Canonical text, as the API server writes quantities back (`1000m` -> `1`, `2048Ki` -> `2Mi`)."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = _round_up_to_nano(abs(value), _context(str(value)))
    if fmt is QuantityFormat.BINARY_SI and (magnitude < 1024 or magnitude != magnitude.to_integral_value()):
        fmt = QuantityFormat.DECIMAL_SI
    if fmt is QuantityFormat.BINARY_SI:
        number, exponent = int(magnitude), 0
        while number % 1024 == 0 and exponent < 60:
            number //= 1024
            exponent += 10
        return f"{sign}{number}{_BINARY_BY_EXPONENT[exponent]}"
    digits_tuple = magnitude.as_tuple()
    mantissa = int("".join(map(str, digits_tuple.digits)))
    exponent = int(digits_tuple.exponent)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if fmt is QuantityFormat.DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    if exponent > 18:
        mantissa, exponent = mantissa * 10 ** (exponent - 18), 18
    return f"{sign}{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"


def is_integer_quantity(quantity: Decimal | str) -> bool:
    """The API server's integer rule for extended resources: `MilliValue() % 1000 == 0`.

    MilliValue rounds away from zero, so a value a hair below a whole number (`0.9999`) passes,
    exactly as it does on a real cluster.
    """
    value = parse_quantity(quantity) if isinstance(quantity, str) else quantity
    if value == value.to_integral_value():
        return True
    ctx = _context(str(value))
    milli = ctx.multiply(value, Decimal(1000)).to_integral_value(rounding=ROUND_UP)
    return ctx.remainder(milli, Decimal(1000)) == 0
