"""English: what the thermal services say."""

TEXTS: dict[str, str] = {
    # Where a reading was taken: a param of the reasons below.
    "thermal.where.node": "{node}",
    "thermal.where.device": "device {device} on {node}",
    # Why a pod's traffic is off (or, kept, why it stays on although hot).
    "thermal.reason.hot": "{where} at {temperature:.1f} °C (trip {trip:g} °C, resume at {resume:g} °C)",
    "thermal.reason.hot_no_reading": "{where} (trip {trip:g} °C, resume at {resume:g} °C)",
    "thermal.reason.hot_stale": (
        "{where} is hot and its temperature cannot be read now; traffic stays off until it can"
    ),
    "thermal.reason.unhealthy": "{where} reads unhealthy",
    "thermal.reason.breaker_nodes": (
        "kept although {why}: the circuit breaker lets protection cut {allowed} of {total} nodes at once, "
        "and as many are cut already"
    ),
    "thermal.reason.breaker_replicas": (
        "kept although {why}: the circuit breaker lets protection cut {allowed} of its {replicas} replicas "
        "of {deployment} at once"
    ),
    "thermal.condition.unnamed": "own condition",
    "thermal.reason.custom": "{where} reads {value:g} on {name} (trip at {trip:g}, resume at {resume:g})",
    "thermal_policy.custom_expression_required": (
        "the own condition needs its PromQL to be switched on: an expression with one series per device, "
        "e.g. DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
    ),
    "thermal_policy.custom_resume_not_below_trip": (
        "the own condition's resume value ({resume:g}) must be below its trip value ({trip:g}), so a device "
        "hovering at the trip value does not flap"
    ),
    "thermal_policy.custom_check_failed": (
        "the own condition's PromQL does not work against Prometheus: {problem}"
    ),
    # A condition switched on that can never trip: the type maps nothing for it to read.
    "thermal_policy.needs_health": (
        "{device_type} maps no health expression, so unhealthy devices can never be cut (nor the "
        "NuFiDeviceUnhealthy alert fire) until one is mapped: Admin → Devices → edit {device_type}, step 2"
    ),
    "thermal_policy.needs_temperature": (
        "{device_type} maps no temperature expression, so the temperature condition can never trip "
        "(nor the NuFiDeviceHot alert fire) until one is mapped: Admin → Devices → edit {device_type}, "
        "step 2"
    ),
    "thermal.reason.kept_last_replica": (
        "kept as the last routable replica of {deployment} although {why}; the policy does not allow a "
        "full shutoff"
    ),
    # Why a node's temperature is unusable (stale).
    "thermal.stale.no_reading": "no usable temperature reading",
    "thermal.stale.no_snapshot": "no monitoring snapshot of the type yet",
    "thermal.stale.snapshot_old": (
        "the latest snapshot is {age_seconds:.0f} s old (limit {limit_seconds:g} s)"
    ),
    "thermal.stale.unreadable": "temperatures could not be read: {reason}",
    "thermal.override_unusable": (
        "{deployment}: the annotation {annotation} is not a valid override ({reason}); it is ignored"
    ),
    "thermal_policy.unreadable": (
        "the stored thermal policy of {device_type} is no longer valid ({reason}); the type's default "
        "applies until an admin saves its policy again"
    ),
    # Policies and overrides refused.
    "thermal_policy.resume_not_below_trip": (
        "resume_celsius ({resume:g}) must be below trip_celsius ({trip:g}), e.g. 10 degrees lower, "
        "so a device hovering at the trip temperature does not flap"
    ),
    "thermal_override.resume_not_below_trip": "with the device type's policy, {problem}",
    "thermal_override.disable_not_allowed": (
        "the device type's thermal policy does not let a deployment switch thermal protection "
        "off (overrides_may_disable is false): leave 'enabled' out, or ask an admin"
    ),
    "thermal_override.trip_above_policy": (
        "trip_celsius {trip_celsius:g} is above {limit:g} °C, the device type's own trip: an override may "
        "raise it only as far as an admin allows (override_max_trip_celsius, unset here); choose a lower one"
    ),
    "thermal_override.resume_too_low": (
        "resume_celsius {resume_celsius:g} is more than {band:g} °C below the trip of {trip:g} °C, the "
        "device type's own gap between trip and resume, so traffic would stay cut long after the device "
        "has cooled: choose {least:g} °C or more"
    ),
    "thermal_override.trip_above_limit": (
        "trip_celsius {trip_celsius:g} is above {limit:g} °C, the highest the device type's "
        "thermal policy lets an override set (override_max_trip_celsius): choose a lower one"
    ),
    "thermal.device_type_not_found": "no device type {device_type!r}; GET /api/v1/devices lists them",
    "thermal.deployment_not_found": "no deployment {name!r} in project {project!r}",
}
