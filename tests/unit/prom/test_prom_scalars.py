"""A scalar expression is refused as "not one series per device" from its syntax, whichever engine would
answer it: Prometheus answers `time()` with a scalar, VictoriaMetrics with a one-item vector without
labels, which would otherwise pass for a device series missing its labels."""

from __future__ import annotations

import pytest

from nufi.devices.checks import check_metrics
from nufi.devices.spec import LabelsDraft, MetricsDraft
from nufi.models.promql import instant_vector_problem
from nufi.prom import QueryResult
from nufi.prom.results import parse_query_data

pytestmark = pytest.mark.unit

# VictoriaMetrics 1.79's answer to `time()` (captured from the binary).
VICTORIAMETRICS_TIME = {
    "resultType": "vector",
    "result": [{"metric": {}, "value": [1796507069, "1796507039.54"]}],
}


@pytest.mark.parametrize("expression", ["time()", "scalar(x)", "(time())", "-pi()", "1 + time()"])
def test_scalar_expressions_are_not_per_device(expression: str) -> None:
    problem = instant_vector_problem(expression)
    assert problem is not None and problem.code == "metric_check.not_vector"
    assert problem.params == {"query": expression, "result_type": "scalar"}


@pytest.mark.parametrize("expression", ["x", "vector(1)", "x + time()", "max by (node) (x)", "-x"])
def test_vector_expressions_pass(expression: str) -> None:
    assert instant_vector_problem(expression) is None


class Engine:
    def __init__(self, answer: QueryResult) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def query(self, promql: str, time: object = None) -> QueryResult:
        self.asked.append(promql)
        return self.answer


async def test_the_check_says_scalar_before_asking_the_engine() -> None:
    engine = Engine(parse_query_data(VICTORIAMETRICS_TIME))
    checked = await check_metrics(
        LabelsDraft(node="node", device="device"), MetricsDraft(utilization="time()"), engine
    )
    said = checked.results["utilization"].error_message
    assert said is not None and said.code == "metric_check.not_vector"
    assert engine.asked == []
