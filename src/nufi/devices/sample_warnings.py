"""What the wizard's metric check warns about the values an expression returned: values that are not
numbers, markers the fetcher refuses, implausible values, and series the expression converted. Each
warning is a message (`metric_check.*`); the ranges are the one rule in `nufi.devices.plausibility`,
which the monitoring snapshot applies too."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from nufi.devices.plausibility import (
    MAX_TEMPERATURE_CELSIUS,
    MAX_UTILIZATION_PERCENT,
    MIN_TEMPERATURE_CELSIUS,
    MIN_UTILIZATION_PERCENT,
    implausible,
)
from nufi.devices.readings import ValueFilter
from nufi.devices.spec import MetricKey
from nufi.messages import Message
from nufi.prom import Sample

CONVERTED_LABEL = "nufi_converted"
"""A label an expression sets on series whose value it converted, naming the conversion `from→to`."""


def plausibility_warnings(metric: MetricKey, samples: Sequence[Sample], usable: ValueFilter) -> list[Message]:
    warnings = []
    total = len(samples)
    odd = [sample for sample in samples if not math.isfinite(sample.value)]
    if odd:
        warnings.append(Message("metric_check.not_numbers", {"count": len(odd), "total": total}))
    refused = [s for s in samples if math.isfinite(s.value) and not usable(metric, s.value)]
    if refused:
        params: dict[str, object] = {"count": len(refused), "total": total, "example": refused[0].value}
        warnings.append(Message("metric_check.refused_values", params))
    wrong = [s for s in samples if usable(metric, s.value) and implausible(metric, s.value) is not None]
    if wrong:
        example = max(wrong, key=lambda s: abs(s.value)).value
        params = {"count": len(wrong), "total": total, "example": example}
        params["hint"] = hint(metric)
        warnings.append(Message("metric_check.implausible_values", params))
    return warnings


def conversion_warnings(samples: Sequence[Sample]) -> list[Message]:
    """What an expression converted: series it marked with `nufi_converted` (`from→to`, e.g. `m°C→°C`),
    as presets do when they recognise an exporter's old unit by its range."""
    conversions = Counter(
        sample.metric[CONVERTED_LABEL] for sample in samples if sample.metric.get(CONVERTED_LABEL)
    )
    warnings = []
    for conversion, count in sorted(conversions.items()):
        source, arrow, target = conversion.partition("→")
        if arrow and source and target:
            params = {"count": count, "total": len(samples), "source": source, "target": target}
            warnings.append(Message("metric_check.converted", params))
        else:
            params = {"count": count, "total": len(samples), "conversion": conversion}
            warnings.append(Message("metric_check.converted_other", params))
    return warnings


def hint(metric: MetricKey) -> Message:
    """What to do about an implausible value of `metric`."""
    if metric == "utilization":
        return Message(
            "metric_check.hint.utilization", {"min": MIN_UTILIZATION_PERCENT, "max": MAX_UTILIZATION_PERCENT}
        )
    if metric == "temperature":
        return Message(
            "metric_check.hint.temperature", {"min": MIN_TEMPERATURE_CELSIUS, "max": MAX_TEMPERATURE_CELSIUS}
        )
    if metric == "power":
        return Message("metric_check.hint.power")
    if metric == "health":
        return Message("metric_check.hint.health")
    return Message("metric_check.hint.memory")
