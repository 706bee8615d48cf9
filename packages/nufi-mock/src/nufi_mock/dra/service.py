"""The gRPC services the kubelet calls on the driver: plugin registration, and DRAPlugin's
NodePrepareResources / NodeUnprepareResources, which write and remove the claims' CDI specs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from nufi_mock.kubelet_api import DRA_PLUGIN_SERVICE, DRA_PLUGIN_TYPE, dra_v1_pb2, pluginregistration_v1_pb2

from .cdi import cdi_device_id, remove_claim_spec, write_claim_spec
from .config import DRIVER_NAME
from .kube import KubeClient, KubeError
from .prepare import PrepareError, devices_by_request

_dra = dra_v1_pb2
_reg = pluginregistration_v1_pb2
_log = structlog.get_logger("nufi_mock.dra")


class RegistrationService:
    """Answers the kubelet's plugin watcher: a DRA plugin named after the driver, at its own socket."""

    def __init__(self, endpoint: Path) -> None:
        self._endpoint = endpoint
        self.registered: bool | None = None
        self.error = ""

    async def GetInfo(self, request: Any, context: Any) -> Any:
        return _reg.PluginInfo(
            type=DRA_PLUGIN_TYPE,
            name=DRIVER_NAME,
            endpoint=str(self._endpoint),
            supported_versions=[DRA_PLUGIN_SERVICE],
        )

    async def NotifyRegistrationStatus(self, request: Any, context: Any) -> Any:
        self.registered, self.error = bool(request.plugin_registered), str(request.error)
        _log.info("kubelet registration", registered=self.registered, error=self.error or None)
        return _reg.RegistrationStatusResponse()


class DraPluginService:
    def __init__(self, kube: KubeClient, *, node: str, cdi_dir: Path, known: Callable[[], set[str]]) -> None:
        self._kube = kube
        self._node = node
        self._cdi_dir = cdi_dir
        self._known = known

    async def NodePrepareResources(self, request: Any, context: Any) -> Any:
        answers = {claim.uid: await self._prepare(claim) for claim in request.claims}
        return _dra.NodePrepareResourcesResponse(claims=answers)

    async def NodeUnprepareResources(self, request: Any, context: Any) -> Any:
        answers = {}
        for claim in request.claims:
            remove_claim_spec(self._cdi_dir, str(claim.uid))
            _log.info("unprepared", claim=f"{claim.namespace}/{claim.name}", uid=claim.uid)
            answers[claim.uid] = _dra.NodeUnprepareResourceResponse()
        return _dra.NodeUnprepareResourcesResponse(claims=answers)

    async def _prepare(self, claim: Any) -> Any:
        uid, where = str(claim.uid), f"{claim.namespace}/{claim.name}"
        try:
            found = await self._kube.claim(str(claim.namespace), str(claim.name))
            if found is None:
                raise PrepareError(f"claim {where} not found")
            grouped = devices_by_request(found, uid=uid, node=self._node, known=self._known())
        except (KubeError, PrepareError) as exc:
            _log.warning("prepare failed", claim=where, problem=str(exc))
            return _dra.NodePrepareResourceResponse(error=str(exc))
        write_claim_spec(self._cdi_dir, uid, grouped)
        _log.info("prepared", claim=where, uid=uid, devices=grouped)
        return _dra.NodePrepareResourceResponse(
            devices=[
                _dra.Device(
                    request_names=[request],
                    pool_name=self._node,
                    device_name=device,
                    cdi_device_ids=[cdi_device_id(uid, request)],
                )
                for request, devices in grouped.items()
                for device in devices
            ]
        )
