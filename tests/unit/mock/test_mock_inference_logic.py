"""The inference server's pure parts: who it says it is, its answers, and the load it measures."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.inference.config import ServedBy
from nufi_mock.inference.generation import count_tokens, generate
from nufi_mock.inference.load import LoadMeter, LoadReporter

LEAD = "Served by pod p on node n with devices lpu0."


def test_served_by_prefers_pod_name_to_an_inherited_hostname() -> None:
    env = {"POD_NAME": "infer-0", "HOSTNAME": "laptop", "NODE_NAME": "lpu-node-1", "POD_NAMESPACE": "team"}
    served = ServedBy.from_env({**env, "LPU_VISIBLE_DEVICES": " lpu1, lpu3 ,"})
    assert served == ServedBy("infer-0", "team", "lpu-node-1", ("lpu1", "lpu3"))
    assert served.source == "team/infer-0"
    assert served.headers() == {
        "x-served-by-pod": "infer-0",
        "x-served-by-node": "lpu-node-1",
        "x-served-by-devices": "lpu1,lpu3",
    }
    assert ServedBy.from_env({"HOSTNAME": "infer-1"}).pod == "infer-1"
    assert ServedBy.from_env({"MY_DEVS": "a"}, "MY_DEVS").devices == ("a",)


def test_an_answer_names_its_server_first_and_is_the_same_for_the_same_prompt() -> None:
    first = generate("hello", model="m", served_by=LEAD, max_tokens=64)
    assert first.text.startswith(LEAD + " ")
    assert first == generate("hello", model="m", served_by=LEAD, max_tokens=64)
    assert first.finish_reason == "stop"
    other = [generate("hello", model="m", served_by=LEAD, max_tokens=64, choice=c).text for c in range(4)]
    assert len(set(other)) > 1


def test_a_stop_sequence_cuts_the_generated_words_not_the_server_sentence() -> None:
    whole = generate("hi", model="m", served_by=LEAD, max_tokens=64)
    word = whole.tokens[len(LEAD.split()) + 2]
    cut = generate("hi", model="m", served_by=LEAD, max_tokens=64, stop=[word, "pod"])
    assert cut.text.startswith(LEAD)
    assert f" {word}" not in cut.text[len(LEAD) :]
    assert cut.finish_reason == "stop"


@given(st.text(max_size=200), st.integers(1, 64))
def test_the_limit_bounds_the_generated_words(prompt: str, limit: int) -> None:
    answer = generate(prompt, model="m", served_by=LEAD, max_tokens=limit)
    lead = len(LEAD.split())
    assert len(answer.tokens) <= max(limit, lead)
    assert count_tokens(answer.text) == len(answer.tokens)
    if answer.finish_reason == "length":
        assert len(answer.tokens) == max(limit, lead)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_meter_turns_the_recent_rate_into_a_capped_utilization() -> None:
    clock = Clock()
    meter = LoadMeter(window_seconds=2.0, saturation_rps=5.0, clock=clock)
    assert meter.utilization() == 0.0
    for _ in range(4):
        clock.now += 0.5
        meter.record()
    assert meter.rate() == 2.0
    assert meter.utilization() == 40.0
    for _ in range(40):
        meter.record()
    assert meter.utilization() == 100.0
    clock.now += 2.0
    assert meter.utilization() == 0.0


def test_a_report_names_the_source_node_devices_and_a_ttl_of_a_few_intervals() -> None:
    clock = Clock()
    meter = LoadMeter(window_seconds=1.0, saturation_rps=2.0, clock=clock)
    meter.record()
    reporter = LoadReporter(
        meter,
        exporter_url="http://127.0.0.1:9850/",
        source="team/infer-0",
        node="lpu-node-1",
        devices=("lpu1",),
        interval_seconds=0.5,
    )
    assert reporter.url == "http://127.0.0.1:9850/control/load"
    assert reporter.report() == {
        "source": "team/infer-0",
        "devices": ["lpu1"],
        "utilization": 50.0,
        "ttl_seconds": 1.5,
        "node": "lpu-node-1",
    }
