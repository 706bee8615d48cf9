"""The server's HTTP face: /v1/models, /v1/completions, /v1/chat/completions and /health."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import InferenceConfig
from .errors import OpenAIError
from .generation import Generated, count_tokens, generate
from .load import LoadMeter, LoadReporter
from .schemas import DEFAULT_MAX_TOKENS, ChatCompletionRequest, CompletionRequest

_Body = TypeVar("_Body", bound=BaseModel)
_OWNER = "nufi-mock"


class _ServedByHeaders:
    """Adds the X-Served-By-* headers to every response, errors and streams included."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.headers = [(k.encode("latin-1"), v.encode("latin-1", "replace")) for k, v in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, sending)


class InferenceServer:
    def __init__(self, config: InferenceConfig, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.meter = LoadMeter(
            window_seconds=config.load_window_seconds, saturation_rps=config.saturation_rps, clock=clock
        )
        self.ready_at = clock() + config.warmup_seconds
        self.created = int(time.time())

    # --- helpers -------------------------------------------------------------------------------------

    def _check_ready(self) -> None:
        left = self.ready_at - self.clock()
        if left > 0:
            raise OpenAIError(
                503,
                f"the model {self.config.model} is still loading; try again in {left:.1f} s",
                type_="server_error",
                code="model_loading",
            )

    def _check_model(self, model: str) -> None:
        if model != self.config.model:
            raise OpenAIError(
                404,
                f"The model `{model}` does not exist; this server serves `{self.config.model}` "
                "(GET /v1/models)",
                param="model",
                code="model_not_found",
            )

    async def _body(self, request: Request, model: type[_Body]) -> _Body:
        raw = await request.body()
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise OpenAIError(
                400, "We could not parse the JSON body of your request; send a JSON object."
            ) from None
        if not isinstance(data, dict):
            raise OpenAIError(400, "The request body must be a JSON object.")
        try:
            body = model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            param = ".".join(str(part) for part in first["loc"]) or None
            raise OpenAIError(400, f"Invalid value for '{param}': {first['msg']}", param=param) from None
        return body

    def _answers(self, prompt: str, n: int, max_tokens: int, stop: list[str]) -> list[Generated]:
        return [
            generate(
                prompt,
                model=self.config.model,
                served_by=self.config.served_by.sentence(),
                max_tokens=max_tokens,
                choice=choice,
                stop=stop,
            )
            for choice in range(n)
        ]

    async def _pace(self, tokens: int) -> None:
        if self.config.tokens_per_second > 0 and tokens > 0:
            await asyncio.sleep(tokens / self.config.tokens_per_second)

    def _envelope(self, kind: str, prefix: str) -> dict[str, Any]:
        return {
            "id": f"{prefix}-{uuid.uuid4().hex[:24]}",
            "object": kind,
            "created": int(time.time()),
            "model": self.config.model,
        }

    @staticmethod
    def _usage(prompt_tokens: int, answers: list[Generated]) -> dict[str, int]:
        completion = sum(len(a.tokens) for a in answers)
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
        }

    # --- routes --------------------------------------------------------------------------------------

    async def health(self, _: Request) -> Response:
        left = self.ready_at - self.clock()
        if left > 0:
            return JSONResponse({"status": "loading", "ready_in_seconds": round(left, 3)}, status_code=503)
        return JSONResponse({"status": "ok", "model": self.config.model})

    def _model_card(self) -> dict[str, Any]:
        return {"id": self.config.model, "object": "model", "created": self.created, "owned_by": _OWNER}

    async def models(self, _: Request) -> Response:
        self._check_ready()
        return JSONResponse({"object": "list", "data": [self._model_card()], "nufi": self._nufi()})

    async def model(self, request: Request) -> Response:
        self._check_ready()
        self._check_model(request.path_params["model"])
        return JSONResponse(self._model_card())

    def _nufi(self) -> dict[str, Any]:
        return self.config.served_by.as_json()

    async def completions(self, request: Request) -> Response:
        self._check_ready()
        body = await self._body(request, CompletionRequest)
        self._check_model(body.model)
        self.meter.record()
        max_tokens = body.max_tokens or DEFAULT_MAX_TOKENS
        prompts = body.prompts
        answers = [a for p in prompts for a in self._answers(p, body.n, max_tokens, body.stop_sequences)]
        prompt_tokens = sum(count_tokens(p) for p in prompts)
        envelope = self._envelope("text_completion", "cmpl")
        if body.stream:
            return self._stream(envelope, answers, chat=False)
        await self._pace(max(len(a.tokens) for a in answers))
        choices = [
            {"text": a.text, "index": i, "logprobs": None, "finish_reason": a.finish_reason}
            for i, a in enumerate(answers)
        ]
        usage = self._usage(prompt_tokens, answers)
        return JSONResponse({**envelope, "choices": choices, "usage": usage, "nufi": self._nufi()})

    async def chat_completions(self, request: Request) -> Response:
        self._check_ready()
        body = await self._body(request, ChatCompletionRequest)
        self._check_model(body.model)
        self.meter.record()
        # The answer depends on the conversation: every message's role and text.
        conversation = "\n".join(f"{m.role}: {m.text}" for m in body.messages)
        answers = self._answers(conversation, body.n, body.token_limit, body.stop_sequences)
        prompt_tokens = sum(count_tokens(m.text) for m in body.messages)
        envelope = self._envelope("chat.completion", "chatcmpl")
        if body.stream:
            return self._stream({**envelope, "object": "chat.completion.chunk"}, answers, chat=True)
        await self._pace(max(len(a.tokens) for a in answers))
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": a.text},
                "logprobs": None,
                "finish_reason": a.finish_reason,
            }
            for i, a in enumerate(answers)
        ]
        usage = self._usage(prompt_tokens, answers)
        return JSONResponse({**envelope, "choices": choices, "usage": usage, "nufi": self._nufi()})

    def _stream(self, envelope: dict[str, Any], answers: list[Generated], *, chat: bool) -> Response:
        """Server-sent events as OpenAI sends them: a chunk per token of each choice, one with the finish
        reason, then ``data: [DONE]``."""

        def chunk(index: int, piece: str | None, finish: str | None, *, first: bool = False) -> str:
            choice: dict[str, Any] = {"index": index, "finish_reason": finish}
            if chat:
                delta: dict[str, str] = {"role": "assistant"} if first else {}
                if piece is not None:
                    delta["content"] = piece
                choice["delta"] = delta
            else:
                choice |= {"text": piece or "", "logprobs": None}
            data = {**envelope, "choices": [choice], "nufi": self._nufi()}
            return f"data: {json.dumps(data)}\n\n"

        async def events() -> AsyncIterator[str]:
            longest = max(len(a.tokens) for a in answers)
            for i in range(len(answers)):
                if chat:
                    yield chunk(i, "", None, first=True)
            for position in range(longest):
                await self._pace(1)
                for i, answer in enumerate(answers):
                    if position < len(answer.tokens):
                        piece = answer.tokens[position] if position == 0 else " " + answer.tokens[position]
                        yield chunk(i, piece, None)
            for i, answer in enumerate(answers):
                yield chunk(i, None if chat else "", answer.finish_reason)
            yield "data: [DONE]\n\n"

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )


def create_app(config: InferenceConfig, *, clock: Callable[[], float] = time.monotonic) -> ASGIApp:
    server = InferenceServer(config, clock=clock)

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                response: Response = await handler(request)
            except OpenAIError as exc:
                return exc.response()
            return response

        return endpoint

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        served_by = config.served_by
        if config.exporter_url is None or not served_by.devices:
            yield
            return
        reporter = LoadReporter(
            server.meter,
            exporter_url=config.exporter_url,
            source=served_by.source,
            node=served_by.node,
            devices=served_by.devices,
            interval_seconds=config.report_interval_seconds,
        )
        stop = asyncio.Event()
        reporting = asyncio.create_task(reporter.run(stop), name="load reports")
        try:
            yield
        finally:
            stop.set()
            await reporting

    routes = [
        Route("/health", server.health),
        Route("/v1/models", guarded(server.models)),
        Route("/v1/models/{model:path}", guarded(server.model)),
        Route("/v1/completions", guarded(server.completions), methods=["POST"]),
        Route("/v1/chat/completions", guarded(server.chat_completions), methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return _ServedByHeaders(app, config.served_by.headers())
