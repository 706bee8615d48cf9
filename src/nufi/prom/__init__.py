"""The only code that speaks to Prometheus."""

from nufi.prom.errors import PrometheusAnswerTooLarge, PrometheusQueryRejected, PrometheusUnavailable
from nufi.prom.gateway import PrometheusGateway
from nufi.prom.results import QueryResult, Sample, Series
from nufi.prom.values import parse_sample_value

__all__ = [
    "PrometheusAnswerTooLarge",
    "PrometheusGateway",
    "PrometheusQueryRejected",
    "PrometheusUnavailable",
    "QueryResult",
    "Sample",
    "Series",
    "parse_sample_value",
]
