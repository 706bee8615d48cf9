"""The check that a page speaks its reader's language finds English sentences on a Korean page and
Korean on an English one, and lets names, identifiers and units through."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.languages import english_sentences, korean_in, wrong_language

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "line",
    [
        "리소스 키 hyperaccel.ai/lpu를 6개 노드에서 찾았습니다.",
        "NVIDIA GPU (nvidia.com/gpu) · lpu-node-1 · 95 °C",
        "PromQL 식 sum by (node) (rate(x[5m]))을(를) 해석할 수 없습니다",
        "Prometheus 사용 불가 · Kubernetes API",
        "HyperAccel LPU",
    ],
)
def test_names_and_technical_tokens_on_a_korean_page_pass(line: str) -> None:
    assert english_sentences(line) == []


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        ("경고: no series yet: the expression matches nothing", "no series yet"),
        ("'bad key!' is not a valid resource key", "is not a valid resource key"),
        ("0/3 nodes are available: 3 Insufficient hyperaccel.ai/lpu", "nodes are available"),
        ("must start with a letter", "must start with a letter"),
    ],
)
def test_english_sentences_on_a_korean_page_are_found(line: str, sentence: str) -> None:
    assert any(sentence in found or found in sentence for found in english_sentences(line)), line


def test_korean_on_an_english_page_is_found() -> None:
    assert korean_in("Devices\n디바이스 추가\nlpu") == ["디바이스 추가"]
    assert wrong_language("Add device", "en") == []


@given(st.text(alphabet="가나다라마바사 0123456789./-:°%", max_size=60))
def test_korean_text_with_numbers_and_units_is_never_english(text: str) -> None:
    assert english_sentences(text) == []
