"""Kubelet gRPC APIs: device plugin ``v1beta1``, PodResources ``v1`` / ``v1alpha1``, DRA ``v1`` and plugin
registration ``v1``.

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

DEFAULT_PLUGINS_REGISTRY = "/var/lib/kubelet/plugins_registry/"
"""Where kubelet plugins (CSI, DRA) put their registration socket; the kubelet watches it."""
DEFAULT_PLUGINS_DIR = "/var/lib/kubelet/plugins/"
"""Where a kubelet plugin serves its own API, in a folder named after it."""
DRA_PLUGIN_TYPE = "DRAPlugin"
"""PluginInfo.type of a DRA driver's kubelet plugin."""
DRA_PLUGIN_SERVICE = "v1.DRAPlugin"
"""What a DRA plugin lists in PluginInfo.supported_versions when it serves the v1 DRAPlugin service."""
DEFAULT_CDI_DIR = "/var/run/cdi"
"""Where drivers write CDI specs and the container runtime reads them."""

CHECKPOINT_FILE_NAME = "kubelet_internal_checkpoint"
"""Kubelet state file in the device plugin directory; it survives a kubelet restart."""

PRE_START_CONTAINER_TIMEOUT_SECONDS = 30.0
PLUGIN_DIAL_TIMEOUT_SECONDS = 10.0
ENDPOINT_STOP_GRACE_SECONDS = 300.0

__all__ = [
    "CHECKPOINT_FILE_NAME",
    "DEFAULT_CDI_DIR",
    "DEFAULT_DEVICE_PLUGIN_PATH",
    "DEFAULT_KUBELET_SOCKET",
    "DEFAULT_PLUGINS_DIR",
    "DEFAULT_PLUGINS_REGISTRY",
    "DEFAULT_POD_RESOURCES_SOCKET",
    "DRA_PLUGIN_SERVICE",
    "DRA_PLUGIN_TYPE",
    "ENDPOINT_STOP_GRACE_SECONDS",
    "HEALTHY",
    "KUBELET_SOCKET_NAME",
    "PLUGIN_DIAL_TIMEOUT_SECONDS",
    "PRE_START_CONTAINER_TIMEOUT_SECONDS",
    "SUPPORTED_VERSIONS",
    "UNHEALTHY",
    "VERSION",
]
