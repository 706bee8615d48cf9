"""The kubelet's client of one DRA driver's kubelet plugin: NodePrepareResources and
NodeUnprepareResources on the endpoint the driver registered."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

from nufi_mock.kubelet_api import dra_v1_pb2, dra_v1_pb2_grpc

from .gotext import go_status_text
from .sockets import unix_target

_dra = dra_v1_pb2

# The kubelet gives a DRA call this long (its plugin client's default).
CALL_TIMEOUT_SECONDS = 45.0


class DraCallError(Exception):
    """The call failed as a whole; the message is the Go kubelet's rendering of the gRPC error."""


class DraPluginClient:
    def __init__(self, driver: str, endpoint: Path) -> None:
        self.driver = driver
        self.endpoint = endpoint
        self._channel = grpc.aio.insecure_channel(
            unix_target(endpoint), options=[("grpc.default_authority", "localhost")]
        )
        self._stub = dra_v1_pb2_grpc.DRAPluginStub(self._channel)

    async def prepare(self, claims: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
        """(namespace, uid, name) each -> NodePrepareResourceResponse by claim uid."""
        request = _dra.NodePrepareResourcesRequest(claims=[_claim(*c) for c in claims])
        reply = await self._call(self._stub.NodePrepareResources, request)
        return dict(reply.claims)

    async def unprepare(self, claims: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
        request = _dra.NodeUnprepareResourcesRequest(claims=[_claim(*c) for c in claims])
        reply = await self._call(self._stub.NodeUnprepareResources, request)
        return dict(reply.claims)

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, timeout=CALL_TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as exc:
            raise DraCallError(f"{self.driver}: {go_status_text(exc)}") from None

    async def close(self) -> None:
        await self._channel.close()


def _claim(namespace: str, uid: str, name: str) -> Any:
    return _dra.Claim(namespace=namespace, uid=uid, name=name)
