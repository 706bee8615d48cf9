"""The kubelet's Registration service, served on ``kubelet.sock`` in the device plugin dir."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from nufi_mock.kubelet_api import SUPPORTED_VERSIONS, deviceplugin_v1beta1_pb2, deviceplugin_v1beta1_pb2_grpc

from .gotext import go_quote, go_quote_list
from .model import RegistrationError
from .resource_name import is_extended_resource_name

RegisterHandler = Callable[[str, str], Awaitable[None]]
"""Connects (resource name, endpoint file name); raises RegistrationError to refuse."""


def check_register_request(version: str, resource_name: str) -> None:
    """The kubelet's checks, in its order and with its error text."""
    if version not in SUPPORTED_VERSIONS:
        raise RegistrationError(
            f"requested API version {go_quote(version)} is not supported by kubelet. "
            f"Supported version is {go_quote_list(SUPPORTED_VERSIONS)}"
        )
    if not is_extended_resource_name(resource_name):
        raise RegistrationError(f"the ResourceName {go_quote(resource_name)} is invalid")


class RegistrationService:
    def __init__(self, connect: RegisterHandler) -> None:
        self._connect = connect

    async def Register(self, request: Any, context: Any) -> Any:
        try:
            check_register_request(str(request.version), str(request.resource_name))
            await self._connect(str(request.resource_name), str(request.endpoint))
        except RegistrationError as exc:
            # The kubelet returns plain Go errors, which gRPC sends with code Unknown.
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))
        return deviceplugin_v1beta1_pb2.Empty()


def registration_services(connect: RegisterHandler) -> list[Callable[[Any], None]]:
    service = RegistrationService(connect)
    return [lambda server: deviceplugin_v1beta1_pb2_grpc.add_RegistrationServicer_to_server(service, server)]
