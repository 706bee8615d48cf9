"""Kubelet gRPC APIs: device plugin ``v1beta1`` and PodResources ``v1`` / ``v1alpha1``.

The messages and services are generated from the .proto files in this package
(``python -m nufi_mock.kubelet_api.generate``) and are wire-compatible with the real kubelet. Import them
as submodules, e.g. ``from nufi_mock.kubelet_api import deviceplugin_v1beta1_pb2``; this package itself
imports none of them, so the generator still runs when they are missing or stale.
"""

VERSION = "v1beta1"
"""Device plugin API version a plugin sends in RegisterRequest.version."""

SUPPORTED_VERSIONS = ("v1beta1",)
"""Versions the kubelet accepts at registration."""

HEALTHY = "Healthy"
UNHEALTHY = "Unhealthy"

KUBELET_SOCKET_NAME = "kubelet.sock"
DEFAULT_DEVICE_PLUGIN_PATH = "/var/lib/kubelet/device-plugins/"
DEFAULT_KUBELET_SOCKET = DEFAULT_DEVICE_PLUGIN_PATH + KUBELET_SOCKET_NAME
DEFAULT_POD_RESOURCES_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"

CHECKPOINT_FILE_NAME = "kubelet_internal_checkpoint"
"""Kubelet state file in the device plugin directory; it survives a kubelet restart."""

PRE_START_CONTAINER_TIMEOUT_SECONDS = 30.0
PLUGIN_DIAL_TIMEOUT_SECONDS = 10.0
ENDPOINT_STOP_GRACE_SECONDS = 300.0

__all__ = [
    "CHECKPOINT_FILE_NAME",
    "DEFAULT_DEVICE_PLUGIN_PATH",
    "DEFAULT_KUBELET_SOCKET",
    "DEFAULT_POD_RESOURCES_SOCKET",
    "ENDPOINT_STOP_GRACE_SECONDS",
    "HEALTHY",
    "KUBELET_SOCKET_NAME",
    "PLUGIN_DIAL_TIMEOUT_SECONDS",
    "PRE_START_CONTAINER_TIMEOUT_SECONDS",
    "SUPPORTED_VERSIONS",
    "UNHEALTHY",
    "VERSION",
]
