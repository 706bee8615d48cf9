"""The names NuFi writes on Kubernetes objects to steer traffic away from hot devices."""

from __future__ import annotations

from typing import Final

# On a NuFi deployment's pod template and in its Service selector, never in the Deployment's own
# selector: flipping it takes a pod out of the Service without orphaning it from its ReplicaSet.
TRAFFIC_LABEL: Final = "nufi.io/traffic"
TRAFFIC_ON: Final = "on"
TRAFFIC_OFF: Final = "off"

OFF_SINCE_ANNOTATION: Final = "nufi.io/thermal-off-since"
OFF_REASON_ANNOTATION: Final = "nufi.io/thermal-off-reason"
OVERRIDE_ANNOTATION: Final = "nufi.io/thermal-override"

TAINT_KEY: Final = "nufi.io/thermal"
TAINT_VALUE: Final = "hot"
TAINT_EFFECT: Final = "NoSchedule"

EVENT_TRIP: Final = "ThermalTrip"
EVENT_RESUME: Final = "ThermalResume"
EVENT_KEPT: Final = "ThermalKept"
EVENT_COMPONENT: Final = "nufi-thermal"
