"""Prometheus sample values and timestamps as they appear in API responses.

Values are JSON strings produced by Go's float formatting: plain decimals, exponent forms, and
the specials `NaN`, `+Inf`, `-Inf`. Python's `float()` also accepts underscores, surrounding
whitespace and words like `infinity`, none of which Prometheus emits, so the grammar is checked
first: anything else means the answer did not come from Prometheus' API.
"""

from __future__ import annotations

import math
import re

from nufi.prom.errors import PrometheusUnavailable

DECIMAL_VALUE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
SPECIAL_VALUES = {"NaN": math.nan, "+Inf": math.inf, "Inf": math.inf, "-Inf": -math.inf}


def parse_sample_value(text: object) -> float:
    """The float a Prometheus sample value string stands for (NaN and ±Inf included)."""
    if not isinstance(text, str):
        raise PrometheusUnavailable(code="prometheus.value_not_string", params={"value": repr(text)})
    special = SPECIAL_VALUES.get(text)
    if special is not None:
        return special
    if DECIMAL_VALUE.fullmatch(text) is None:
        raise PrometheusUnavailable(code="prometheus.value_not_number", params={"value": repr(text)})
    return float(text)


def parse_timestamp(value: object) -> float:
    """A sample timestamp: Unix seconds as a JSON number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise PrometheusUnavailable(code="prometheus.timestamp_invalid", params={"value": repr(value)})
    return float(value)
