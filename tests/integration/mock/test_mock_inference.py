"""`nufi-mock inference` as a real process on a loopback port: OpenAI-shaped models, completions and
chat completions that say which pod, node and devices served them, bad input, warm-up and pacing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.polling import until

from .inference_support import start_inference

MODEL = "mock-lpu-llm"
ENV = {
    "POD_NAME": "infer-7d9f-x2",
    "POD_NAMESPACE": "team-a",
    "NODE_NAME": "lpu-node-2",
    "LPU_VISIBLE_DEVICES": "lpu1,lpu3",
    "HOSTNAME": "some-laptop",
}
SERVED = "Served by pod infer-7d9f-x2 on node lpu-node-2 with devices lpu1,lpu3."
NUFI = {"pod": "infer-7d9f-x2", "namespace": "team-a", "node": "lpu-node-2", "devices": ["lpu1", "lpu3"]}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, base = start_inference("inference", tmp_path_factory.mktemp("inference"), ENV)
    try:
        yield base
    finally:
        process.stop()


def post(url: str, path: str, body: Any) -> httpx.Response:
    return httpx.post(f"{url}{path}", json=body, timeout=10.0)


def assert_served_by(response: httpx.Response) -> None:
    assert response.headers["x-served-by-pod"] == "infer-7d9f-x2"
    assert response.headers["x-served-by-node"] == "lpu-node-2"
    assert response.headers["x-served-by-devices"] == "lpu1,lpu3"


def test_models_lists_the_one_model(url: str) -> None:
    response = httpx.get(f"{url}/v1/models", timeout=5.0)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "list"
    assert [(m["id"], m["object"], m["owned_by"]) for m in body["data"]] == [(MODEL, "model", "nufi-mock")]
    assert body["nufi"] == NUFI
    assert_served_by(response)
    assert httpx.get(f"{url}/v1/models/{MODEL}", timeout=5.0).json()["id"] == MODEL
    missing = httpx.get(f"{url}/v1/models/gpt-9", timeout=5.0)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "model_not_found"
    assert httpx.get(f"{url}/health", timeout=5.0).json() == {"status": "ok", "model": MODEL}


def test_a_completion_names_its_server_in_text_field_and_headers(url: str) -> None:
    response = post(url, "/v1/completions", {"model": MODEL, "prompt": "Say hello", "max_tokens": 20})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "text_completion" and body["model"] == MODEL and body["id"].startswith("cmpl-")
    [choice] = body["choices"]
    assert choice["index"] == 0 and choice["logprobs"] is None
    assert choice["text"].startswith(SERVED)
    assert choice["finish_reason"] in {"stop", "length"}
    words = len(choice["text"].split())
    assert words <= 20
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": words, "total_tokens": words + 2}
    assert body["nufi"] == NUFI
    assert_served_by(response)
    again = post(url, "/v1/completions", {"model": MODEL, "prompt": "Say hello", "max_tokens": 20})
    assert again.json()["choices"][0]["text"] == choice["text"]


def test_several_prompts_and_choices_are_indexed_in_order(url: str) -> None:
    body = {"model": MODEL, "prompt": ["one", "two"], "n": 2, "max_tokens": 30}
    choices = post(url, "/v1/completions", body).json()["choices"]
    assert [c["index"] for c in choices] == [0, 1, 2, 3]
    assert all(c["text"].startswith(SERVED) for c in choices)
    assert len({c["text"] for c in choices}) == 4


def test_a_chat_completion_answers_as_the_assistant(url: str) -> None:
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [{"type": "text", "text": "Which LPU are you on?"}]},
    ]
    response = post(url, "/v1/chat/completions", {"model": MODEL, "messages": messages, "max_tokens": 40})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    [choice] = body["choices"]
    assert choice["message"]["role"] == "assistant"
    assert choice["message"]["content"].startswith(SERVED)
    assert choice["finish_reason"] == "stop"
    assert body["usage"]["prompt_tokens"] == 3 + 5
    assert body["usage"]["completion_tokens"] == len(choice["message"]["content"].split())
    assert body["nufi"] == NUFI
    assert_served_by(response)


def sse_events(response: httpx.Response) -> list[str]:
    return [line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")]


def test_a_streamed_chat_completion_sends_the_same_answer_in_chunks(url: str) -> None:
    body = {"model": MODEL, "messages": [{"role": "user", "content": "stream it"}], "max_tokens": 25}
    whole = post(url, "/v1/chat/completions", body).json()["choices"][0]
    with httpx.stream(
        "POST", f"{url}/v1/chat/completions", json={**body, "stream": True}, timeout=10.0
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert_served_by(response)
        events = sse_events(response)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["nufi"] == NUFI for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == whole["message"]["content"]
    assert [c["choices"][0]["finish_reason"] for c in chunks][-1] == whole["finish_reason"]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])


def test_a_streamed_completion_ends_with_done(url: str) -> None:
    body = {"model": MODEL, "prompt": "p", "max_tokens": 14, "stream": True}
    with httpx.stream("POST", f"{url}/v1/completions", json=body, timeout=10.0) as response:
        events = sse_events(response)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert "".join(c["choices"][0]["text"] for c in chunks).startswith(SERVED)
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/v1/chat/completions", {"model": MODEL}, "messages"),
        ("/v1/chat/completions", {"model": MODEL, "messages": []}, "messages"),
        ("/v1/chat/completions", {"model": MODEL, "messages": [{"role": "robot", "content": "x"}]}, None),
        ("/v1/chat/completions", {"model": MODEL, "messages": [{"role": "system", "content": "x"}]}, None),
        ("/v1/completions", {"model": MODEL, "prompt": "x", "max_tokens": 0}, "max_tokens"),
        ("/v1/completions", {"model": MODEL, "prompt": "x", "temperature": 3}, "temperature"),
        ("/v1/completions", {"model": MODEL, "prompt": [1, 2, 3]}, None),
        ("/v1/completions", {"prompt": "x"}, "model"),
        ("/v1/completions", ["not", "an", "object"], None),
    ],
)
def test_bad_input_is_an_openai_shaped_400(url: str, path: str, body: Any, param: str | None) -> None:
    response = post(url, path, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"]
    if param is not None:
        assert error["param"] == param
    assert set(error) == {"message", "type", "param", "code"}


def test_malformed_json_and_an_unknown_model(url: str) -> None:
    broken = httpx.post(f"{url}/v1/completions", content=b"{oops", timeout=5.0)
    assert broken.status_code == 400 and "JSON" in broken.json()["error"]["message"]
    unknown = post(
        url, "/v1/chat/completions", {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}
    )
    assert unknown.status_code == 404
    assert unknown.json()["error"] == {
        "message": f"The model `gpt-4o` does not exist; this server serves `{MODEL}` (GET /v1/models)",
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }
    assert_served_by(unknown)


async def test_warm_up_answers_503_then_serves_and_answers_take_their_simulated_time(
    tmp_path: Path,
) -> None:
    env = {"POD_NAME": "slow-0", "MY_DEVICES": "lpu2", "LPU_VISIBLE_DEVICES": "lpu0"}
    args = (
        "--model",
        "tiny",
        "--warmup-seconds",
        "1.5",
        "--tokens-per-second",
        "40",
        "--devices-env",
        "MY_DEVICES",
    )
    process, base = start_inference("inference-slow", tmp_path, env, *args)
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10.0) as client:
            first = await client.get("/health")
            if first.status_code == 503:
                assert first.json()["status"] == "loading"
                early = await client.post("/v1/completions", json={"model": "tiny", "prompt": "x"})
                assert early.status_code == 503 and early.json()["error"]["code"] == "model_loading"

            async def healthy() -> bool:
                return (await client.get("/health")).status_code == 200

            await until(healthy, within=10.0)
            started = time.monotonic()
            response = await client.post(
                "/v1/completions", json={"model": "tiny", "prompt": "x", "max_tokens": 24}
            )
            elapsed = time.monotonic() - started
            assert response.status_code == 200
            tokens = response.json()["usage"]["completion_tokens"]
            assert elapsed >= tokens / 40 - 0.05, (elapsed, tokens)
            assert response.json()["nufi"]["devices"] == ["lpu2"]
            assert response.headers["x-served-by-devices"] == "lpu2"
            assert "x-served-by-node" not in response.headers
    finally:
        process.stop()
