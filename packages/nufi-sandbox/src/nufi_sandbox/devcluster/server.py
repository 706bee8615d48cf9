"""The dev cluster's HTTP face: the Kubernetes REST wire format over the store."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.patching.json_patch import PatchError, apply_json_patch, apply_merge_patch
from nufi_sandbox.devcluster.patching.merge_keys import merge_keys_for
from nufi_sandbox.devcluster.patching.strategic_merge import apply_strategic_merge_patch
from nufi_sandbox.devcluster.selectors import (
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)
from nufi_sandbox.devcluster.storage.store import Obj, Store
from nufi_sandbox.devcluster.wire import protobuf
from nufi_sandbox.devcluster.wire.authn import RequireToken
from nufi_sandbox.devcluster.wire.discovery_routes import DiscoveryEndpoints
from nufi_sandbox.devcluster.wire.pod_logs import LogPath, PodLogs
from nufi_sandbox.devcluster.wire.proxy_target import LocalPorts
from nufi_sandbox.devcluster.wire.routing import Target, parse_path
from nufi_sandbox.devcluster.wire.scale import scale_of, write_scale
from nufi_sandbox.devcluster.wire.service_proxy import ServiceProxy
from nufi_sandbox.devcluster.wire.tables import to_table
from nufi_sandbox.devcluster.wire.watch_stream import Predicate, watch_response

log = logging.getLogger(__name__)

_PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


class ApiServer:
    def __init__(self, store: Store, server_address: str = "127.0.0.1") -> None:
        self.store = store
        self.server_address = server_address

    # -- entry ---------------------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        try:
            target = parse_path(self.store.registry, request.url.path)
            method = request.method
            if method == "GET":
                return await self._get(request, target)
            if method == "POST":
                return await self._post(request, target)
            if method == "PUT":
                return await self._put(request, target)
            if method == "PATCH":
                return await self._patch(request, target)
            if method == "DELETE":
                return await self._delete(request, target)
            raise errors.method_not_allowed()
        except errors.ApiError as exc:
            return _json(exc.status(), exc.code)
        except Exception as exc:  # a bug here must still answer in the wire format clients parse
            log.exception("internal error serving %s %s", request.method, request.url.path)
            return _json(
                errors.ApiError(500, "InternalError", f"Internal error occurred: {exc}").status(), 500
            )

    # -- verbs ---------------------------------------------------------------------------------------

    async def _get(self, request: Request, t: Target) -> Response:
        params = request.query_params
        if t.is_collection:
            predicate = self._predicate(t, params.get("labelSelector", ""), params.get("fieldSelector", ""))
            if t.legacy_watch or _truthy(params.get("watch")):
                return watch_response(self.store, request, t, predicate)
            limit = int(params.get("limit") or 0)
            items, token, list_rv = self.store.list(
                t.rt, t.namespace, predicate=predicate, limit=limit, continue_token=params.get("continue", "")
            )
            list_meta: dict[str, Any] = {"resourceVersion": str(list_rv)}
            if token:
                list_meta["continue"] = token
            if "as=Table" in request.headers.get("accept", ""):
                return _json(to_table(t.rt, items, list_meta))
            return _json(
                {
                    "kind": t.rt.list_kind,
                    "apiVersion": t.rt.api_version,
                    "metadata": list_meta,
                    "items": items,
                }
            )
        if t.legacy_watch:
            predicate = self._predicate(t, "", f"metadata.name={t.name}")
            return watch_response(self.store, request, t, predicate)
        obj = self.store.get(t.rt, t.namespace or "", t.name)
        if t.subresource == "scale":
            return _json(scale_of(obj))
        if "as=Table" in request.headers.get("accept", ""):
            return _json(to_table(t.rt, [obj], {"resourceVersion": obj["metadata"]["resourceVersion"]}))
        return _json(obj)

    async def _post(self, request: Request, t: Target) -> Response:
        body = await _body(request)
        dry_run = bool(request.query_params.get("dryRun"))
        if t.subresource == "binding":
            node = body.get("target", {}).get("name", "")
            if not node:
                raise errors.invalid(
                    t.rt,
                    t.name,
                    'Binding "" is invalid: target.name: Required value',
                    [{"reason": "FieldValueRequired", "message": "Required value", "field": "target.name"}],
                )
            self.store.bind(t.namespace or "", t.name, node)
            return _json(
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}, 201
            )
        if not t.is_collection:
            raise errors.method_not_allowed()
        self._check_kind(t, body)
        created = self.store.create(t.rt, t.namespace or "", body, dry_run=dry_run)
        return _json(created, 201)

    async def _put(self, request: Request, t: Target) -> Response:
        if t.is_collection:
            raise errors.method_not_allowed()
        body = await _body(request)
        dry_run = bool(request.query_params.get("dryRun"))
        if t.subresource == "scale":
            return _json(write_scale(self.store, t, body, dry_run))
        self._check_kind(t, body)
        return _json(self._update(t, body, dry_run))

    async def _patch(self, request: Request, t: Target) -> Response:
        if t.is_collection:
            raise errors.method_not_allowed()
        content_type = request.headers.get("content-type", "").split(";")[0].strip()
        if content_type not in _PATCH_TYPES:
            raise errors.unsupported_media_type(content_type)
        if content_type == "application/strategic-merge-patch+json" and not t.rt.strategic_merge:
            raise errors.unsupported_media_type(content_type)
        document = await _body(request, allow_list=True)
        dry_run = bool(request.query_params.get("dryRun"))
        current = self.store.get(t.rt, t.namespace or "", t.name)
        base = scale_of(current) if t.subresource == "scale" else current
        try:
            if content_type == "application/json-patch+json":
                if not isinstance(document, list):
                    raise errors.bad_request("json patch must be a list of operations")
                patched = apply_json_patch(base, document)
            elif content_type == "application/merge-patch+json":
                patched = apply_merge_patch(base, document)
            else:
                kind = "Scale" if t.subresource == "scale" else t.rt.kind
                patched = apply_strategic_merge_patch(base, document, merge_keys_for(kind))
        except PatchError as exc:
            reason = {400: "BadRequest", 422: "Invalid"}.get(exc.status, "InternalError")
            raise errors.ApiError(exc.status, reason, str(exc)) from None
        if t.subresource == "scale":
            return _json(write_scale(self.store, t, patched, dry_run))
        requested_rv = (patched.get("metadata") or {}).get("resourceVersion")
        if not requested_rv or requested_rv == base["metadata"]["resourceVersion"]:
            # A patch without its own resourceVersion applies to what it was computed against.
            patched.setdefault("metadata", {})["resourceVersion"] = current["metadata"]["resourceVersion"]
        return _json(self._update(t, patched, dry_run))

    async def _delete(self, request: Request, t: Target) -> Response:
        body = await _body(request, optional=True)
        params = request.query_params
        propagation = body.get("propagationPolicy") or params.get("propagationPolicy") or "Background"
        grace_raw = body.get("gracePeriodSeconds", params.get("gracePeriodSeconds"))
        grace = int(grace_raw) if grace_raw is not None else None
        preconditions = body.get("preconditions") or {}
        dry_run = bool(body.get("dryRun") or params.get("dryRun"))
        if t.is_collection:
            predicate = self._predicate(t, params.get("labelSelector", ""), params.get("fieldSelector", ""))
            items, _, list_rv = self.store.list(t.rt, t.namespace, predicate=predicate)
            deleted = [
                self.store.delete(
                    t.rt,
                    o["metadata"].get("namespace", ""),
                    o["metadata"]["name"],
                    propagation=propagation,
                    grace_period=grace,
                    dry_run=dry_run,
                )
                for o in items
            ]
            return _json(
                {
                    "kind": t.rt.list_kind,
                    "apiVersion": t.rt.api_version,
                    "metadata": {"resourceVersion": str(list_rv)},
                    "items": deleted,
                }
            )
        obj = self.store.delete(
            t.rt,
            t.namespace or "",
            t.name,
            propagation=propagation,
            grace_period=grace,
            precondition_uid=preconditions.get("uid"),
            precondition_rv=preconditions.get("resourceVersion"),
            dry_run=dry_run,
        )
        return _json(obj)

    # -- helpers -------------------------------------------------------------------------------------

    def _update(self, t: Target, body: Obj, dry_run: bool) -> Obj:
        return self.store.update(
            t.rt, t.namespace or "", t.name, body, subresource=t.subresource, dry_run=dry_run
        )

    def _check_kind(self, t: Target, body: Obj) -> None:
        kind = body.get("kind")
        if kind and kind != t.rt.kind:
            raise errors.bad_request(
                f"the API version in the data ({body.get('apiVersion')}) does not match the expected API "
                f"version ({t.rt.api_version})"
                if body.get("apiVersion") != t.rt.api_version
                else f"kind {kind} does not match the resource {t.rt.plural}"
            )

    def _predicate(self, t: Target, label_text: str, field_text: str) -> Predicate | None:
        if not label_text and not field_text:
            return None
        try:
            labels = parse_label_selector(label_text) if label_text else None
            fields = parse_field_selector(field_text, t.rt.field_selectors) if field_text else None
        except SelectorError as exc:
            raise errors.bad_request(str(exc)) from None

        def matches(obj: Obj) -> bool:
            if labels is not None and not labels.matches(obj.get("metadata", {}).get("labels") or {}):
                return False
            return fields is None or fields.matches(obj)

        return matches


async def _body(request: Request, *, allow_list: bool = False, optional: bool = False) -> Any:
    raw = await request.body()
    if not raw.strip():
        if optional:
            return {}
        raise errors.bad_request("the request body is empty")
    if request.headers.get("content-type", "").split(";")[0].strip() == protobuf.CONTENT_TYPE:
        return _protobuf_body(raw)
    try:
        body = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise errors.bad_request(f"the body of the request could not be decoded as JSON: {exc}") from None
    if isinstance(body, list) and allow_list:
        return body
    if not isinstance(body, dict):
        raise errors.bad_request("the request body must be a JSON object")
    return body


def _protobuf_body(raw: bytes) -> Any:
    try:
        return protobuf.decode_object(raw)
    except protobuf.UnknownKind:
        raise errors.unsupported_body() from None
    except protobuf.ProtobufError as exc:
        raise errors.bad_request(f"the body of the request could not be decoded as protobuf: {exc}") from None


async def _health(_: Request) -> Response:
    return PlainTextResponse("ok")


def create_app(
    store: Store,
    *,
    server_address: str,
    token: str,
    on_startup: list[Any] | None = None,
    on_shutdown: list[Any] | None = None,
    kubelet_restart: Callable[[str], Awaitable[bool]] | None = None,
    local_ports: LocalPorts | None = None,
    log_path: LogPath | None = None,
) -> Starlette:
    """`token` is the bearer token every request but the public ones must carry (wire/authn.py);
    `local_ports` tells the services proxy which local process serves a pod's port, `log_path` where a
    container's process writes its output."""
    api = ApiServer(store, server_address)
    proxy = ServiceProxy(store, local_ports)
    pod_logs = PodLogs(store, log_path)
    discovery = DiscoveryEndpoints(store.registry, server_address)

    async def restart_kubelet(request: Request) -> Response:
        # Not a Kubernetes API: a test control that plays a kubelet restart on one simulated node.
        node = request.path_params["node"]
        if kubelet_restart is None or not await kubelet_restart(node):
            return _json(
                errors.ApiError(404, "NotFound", f"no simulated kubelet for node {node!r}").status(), 404
            )
        return _json({"node": node, "restarted": True})

    verbs = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    routes = [
        Route("/version", discovery.version),
        Route("/healthz", _health),
        Route("/readyz", _health),
        Route("/livez", _health),
        Route("/devcluster/nodes/{node}/restart-kubelet", restart_kubelet, methods=["POST"]),
        Route("/openapi/v3", discovery.openapi_index),
        Route("/openapi/v3/{gv:path}", discovery.openapi_document),
        # Clients ask for discovery both with and without a trailing slash (`/apis/`).
        Route("/api", discovery.core),
        Route("/api/", discovery.core),
        Route("/api/{version}", discovery.resources),
        Route("/api/{version}/", discovery.resources),
        *proxy.routes(),
        *pod_logs.routes(),
        Route("/apis", discovery.groups),
        Route("/apis/", discovery.groups),
        Route("/apis/{group}", discovery.group),
        Route("/apis/{group}/", discovery.group),
        Route("/apis/{group}/{version}", discovery.resources),
        Route("/apis/{group}/{version}/", discovery.resources),
        Route("/api/{rest:path}", api.handle, methods=verbs),
        Route("/apis/{rest:path}", api.handle, methods=verbs),
    ]

    return Starlette(
        routes=routes,
        middleware=[Middleware(RequireToken, token=token)],
        lifespan=_lifespan(on_startup or [], on_shutdown or [], proxy),
    )


def _lifespan(
    on_startup: list[Any], on_shutdown: list[Any], proxy: ServiceProxy
) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        for start in on_startup:
            await start()
        try:
            yield
        finally:
            for stop in on_shutdown:
                await stop()
            await proxy.aclose()

    return lifespan
