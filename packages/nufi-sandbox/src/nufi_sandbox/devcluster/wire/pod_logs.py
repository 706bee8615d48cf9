"""`GET /api/v1/namespaces/{ns}/pods/{name}/log`: what a mapped container's process wrote.

Containers that only exist as records have no output: their log is empty. `container` (required when
the pod has several), `tailLines`, `limitBytes` and `follow` behave as with the real API server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.storage.store import Store

LogPath = Callable[[str, str, str, str], Path]
"""(namespace, pod, pod uid, container) → the container's log file."""

_FOLLOW_POLL_SECONDS = 0.2


def _status(error: errors.ApiError) -> JSONResponse:
    return JSONResponse(error.status(), status_code=error.code)


def _tail(data: bytes, lines: int) -> bytes:
    if lines <= 0:
        return b""
    kept = data.splitlines(keepends=True)[-lines:]
    return b"".join(kept)


class PodLogs:
    def __init__(self, store: Store, log_path: LogPath | None) -> None:
        self._store = store
        self._log_path = log_path

    def routes(self) -> list[Route]:
        return [Route("/api/v1/namespaces/{namespace}/pods/{name}/log", self.get, methods=["GET"])]

    async def get(self, request: Request) -> Response:
        namespace, name = request.path_params["namespace"], request.path_params["name"]
        params = request.query_params
        pods = self._store.rt("", "v1", "pods")
        try:
            pod = self._store.get(pods, namespace, name)
            containers = [str(c["name"]) for c in pod.get("spec", {}).get("containers") or []]
            container = params.get("container") or ""
            if not container:
                if len(containers) != 1:
                    raise errors.bad_request(
                        f"a container name must be specified for pod {name}, "
                        f"choose one of: [{' '.join(containers)}]"
                    )
                container = containers[0]
            elif container not in containers:
                raise errors.bad_request(f"container {container} is not valid for pod {name}")
            tail = int(params["tailLines"]) if params.get("tailLines") else None
            limit = int(params["limitBytes"]) if params.get("limitBytes") else None
        except errors.ApiError as exc:
            return _status(exc)
        except ValueError:
            return _status(errors.bad_request("tailLines and limitBytes must be integers"))
        uid = str(pod["metadata"]["uid"])
        path = self._log_path(namespace, name, uid, container) if self._log_path is not None else None
        data = _read_from(path, 0) if path is not None else b""
        offset = len(data)
        if tail is not None:
            data = _tail(data, tail)
        if limit is not None:
            data = data[:limit]
        if params.get("follow") not in ("true", "1") or path is None:
            return Response(data, media_type="text/plain")
        return StreamingResponse(
            self._follow(data, offset, path, namespace, name, uid), media_type="text/plain"
        )

    async def _follow(
        self, first: bytes, offset: int, path: Path, namespace: str, name: str, uid: str
    ) -> AsyncIterator[bytes]:
        """The log so far, then what is appended, until the pod is gone (`kubectl logs -f`)."""
        yield first
        pods = self._store.rt("", "v1", "pods")
        while True:
            pod = self._store.find(pods, namespace, name)
            if pod is None or pod["metadata"].get("uid") != uid:
                return
            chunk = _read_from(path, offset)
            if chunk:
                offset += len(chunk)
                yield chunk
            await asyncio.sleep(_FOLLOW_POLL_SECONDS)


# Local files of a few kilobytes: reading them blocks the loop no longer than a store call does.
def _read_from(path: Path, offset: int) -> bytes:
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read()
    except OSError:
        return b""
