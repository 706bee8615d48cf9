"""The HTTP side of the command line: one httpx client per command, the bearer token from --token,
NUFI_TOKEN or the cached login (renewed when expired), and problems turned into exit codes."""

from __future__ import annotations

import functools
import ipaddress
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

import httpx
import typer
from pydantic import BaseModel, ValidationError

from nufi import __version__
from nufi.cli import exits
from nufi.cli.problems import Problem
from nufi.cli.say import accept_language, say
from nufi.cli.tokens import StoredLogin, TokenCache, fresh_login, normalise_server, renew

DEFAULT_SERVER = "http://127.0.0.1:8080"
INSECURE_HTTP_ENV = "NUFI_ALLOW_INSECURE_HTTP"
# Unit tests put an httpx.MockTransport here; None is the network.
transport: httpx.BaseTransport | None = None
_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

P = ParamSpec("P")
R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)


def http_client(**options: Any) -> httpx.Client:
    headers = {"Accept-Language": accept_language(), "User-Agent": f"nufi-cli/{__version__}"}
    return httpx.Client(transport=transport, timeout=_TIMEOUT, headers=headers, **options)


def server_of(
    option: str | None, cache: TokenCache | None = None, *, allow_insecure_http: bool = False
) -> str:
    """--server (or NUFI_SERVER), else the server of the last `nufi login`, else the local default.

    A server given as plain `http://` to another machine is refused (tokens would cross the network
    in clear) unless the caller allows it, NUFI_ALLOW_INSECURE_HTTP is set, or a login to it is kept
    (which `nufi login --allow-insecure-http` made)."""
    cache = cache or TokenCache()
    if not option:
        return normalise_server(cache.current_server() or DEFAULT_SERVER)
    server = normalise_server(option)
    if plain_http_off_loopback(server) and not (
        allow_insecure_http or insecure_http_allowed_by_env() or cache.load(server) is not None
    ):
        raise exits.CliFailure(exits.USAGE, [say("cli.usage.insecure_http", server=server)])
    return server


def plain_http_off_loopback(server: str) -> bool:
    """`http://` to a host other than this machine (`localhost`, 127.0.0.0/8 or `[::1]`)."""
    parts = urlsplit(server)
    if parts.scheme.lower() != "http":
        return False
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def insecure_http_allowed_by_env() -> bool:
    return os.environ.get(INSECURE_HTTP_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


class Api:
    """The NuFi API at `server`, as the caller: `token` when given, else the cached login."""

    def __init__(self, server: str, token: str | None = None, cache: TokenCache | None = None) -> None:
        self.server = normalise_server(server)
        self.cache = cache or TokenCache()
        self.http = http_client()
        self._token = token
        self._login: StoredLogin | None = None if token else self.cache.load(self.server)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def request(self, method: str, path: str, **options: Any) -> httpx.Response:
        response = self._send(method, path, options, renewed=False)
        if response.is_error:
            raise Problem.of(response).failure()
        return response

    def json(self, method: str, path: str, **options: Any) -> Any:
        response = self.request(method, path, **options)
        if response.status_code == httpx.codes.NO_CONTENT or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise exits.CliFailure(
                exits.UNAVAILABLE,
                [say("cli.net.not_json", url=str(response.url), status=response.status_code)],
            ) from None

    def read(self, model: type[M], method: str, path: str, **options: Any) -> M:
        """The answer as `model`; an answer that is not one is the server's failure, said as such
        (exit 3) rather than a traceback further on."""
        return parsed(model, self.json(method, path, **options), self.server + path)

    @contextmanager
    def stream(self, path: str, **options: Any) -> Iterator[httpx.Response]:
        request = self.http.build_request("GET", self.server + path, headers=self._headers(), **options)
        try:
            response = self.http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise self._unreachable(path, exc) from None
        try:
            if response.is_error:
                response.read()
                raise Problem.of(response).failure()
            yield response
        finally:
            response.close()

    def _send(self, method: str, path: str, options: dict[str, Any], *, renewed: bool) -> httpx.Response:
        try:
            response = self.http.request(method, self.server + path, headers=self._headers(), **options)
        except httpx.HTTPError as exc:
            raise self._unreachable(path, exc) from None
        if response.status_code == httpx.codes.UNAUTHORIZED and not renewed and self._can_renew():
            # Revoked or expired early (clock skew): one renewal, then the server's word stands.
            assert self._login is not None
            self._login = renew(self.cache, self._login, self.http)
            return self._send(method, path, options, renewed=True)
        return response

    def _can_renew(self) -> bool:
        return self._token is None and self._login is not None and bool(self._login.refresh_token)

    def _headers(self) -> dict[str, str]:
        token = self._token
        if token is None and self._login is not None:
            self._login = fresh_login(self.cache, self._login, self.http, time.time())
            token = self._login.access_token
        return {"Authorization": f"Bearer {token}"} if token else {}

    def _unreachable(self, path: str, exc: httpx.HTTPError) -> exits.CliFailure:
        error = str(exc) or type(exc).__name__
        return exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.unreachable", url=self.server + path, error=error)]
        )


def parsed(model: type[M], data: object, url: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "-"
        raise exits.CliFailure(
            exits.UNAVAILABLE, [say("cli.net.unexpected_answer", url=url, field=where, problem=first["msg"])]
        ) from None


def exits_on_failure(command: Callable[P, R]) -> Callable[P, R]:
    """A command whose CliFailure becomes its lines on stderr and its exit code."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except exits.CliFailure as failure:
            for line in failure.lines:
                typer.echo(line, err=True)
            raise typer.Exit(failure.exit_code) from None

    return run
