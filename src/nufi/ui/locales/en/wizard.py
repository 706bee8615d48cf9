"""English texts of Admin → Devices → Add Device (the wizard), its kept draft, and editing a device type."""

TEXTS: dict[str, str] = {
    "wizard.title": "Add Device",
    "wizard.step.identity": "Basics",
    "wizard.step.metrics": "Labels and metrics",
    "wizard.step.review": "Review and save",
    "wizard.step_of": "Step {step} of 3",
    "wizard.optional": "(optional)",
    "wizard.field.id": "ID",
    "wizard.field.name": "Name",
    "wizard.field.vendor": "Vendor",
    "wizard.field.resource_key": "Resource key",
    "wizard.hint.id": (
        "The name in the API and URLs: lowercase letters, digits, - (e.g. lpu); "
        "left empty, made from the name"
    ),
    "wizard.hint.resource_key": (
        "The name the device plugin advertises on the nodes (e.g. hyperaccel.ai/lpu)"
    ),
    "wizard.key.checking": "Checking the cluster…",
    "wizard.key.found": "✓ Detected in the cluster.",
    "wizard.key.totals": "{capacity} in all on {nodes} {nodes:plural:node|nodes} ({allocatable} allocatable)",
    "wizard.key.not_found": "⚠ Not detected in the cluster.",
    "wizard.key.confirm.title": "No node advertises {resource_key}",
    "wizard.key.confirm.body": (
        "Until a device plugin advertises this resource on a node, monitoring shows nothing for this "
        "type and workloads that ask for it cannot be placed."
    ),
    "wizard.key.confirm.go_on": "Go on anyway",
    "wizard.key.confirm.back": "Back",
    "wizard.key.invalid": "The resource key is not valid. Fix the following:",
    "wizard.key.unavailable": "The cluster could not be read, so the resource key cannot be checked.",
    "wizard.key.registered": "⚠ Already registered by {name} ({id}).",
    "wizard.key.registered_link": "Edit it",
    "wizard.column.node": "Node",
    "wizard.column.device": "Device",
    "wizard.column.value": "Value",
    "wizard.column.capacity": "Capacity",
    "wizard.column.allocatable": "Allocatable",
    "wizard.labels.title": "Labels",
    "wizard.labels.help": (
        "The Prometheus label names that tell the node, device, pod and namespace of a series."
    ),
    "wizard.label.node": "Node label",
    "wizard.label.device": "Device label",
    "wizard.label.pod": "Pod label",
    "wizard.label.namespace": "Namespace label",
    "wizard.metrics.title": "Metrics (PromQL)",
    "wizard.metric.utilization": "Utilization (%)",
    "wizard.metric.memory": "Memory",
    "wizard.metric.temperature": "Temperature (°C)",
    "wizard.metric.power": "Power (W)",
    "wizard.metric.health": "Health (1 healthy, 0 unhealthy)",
    "wizard.hint.health": (
        "One series per device: 1 while it is healthy, 0 when it is not (e.g. lpu_health; x == bool 0 "
        "when the exporter's 0 means healthy). Temperature protection can cut unhealthy devices only "
        "when this is set."
    ),
    "wizard.memory.mode.used_total": "Used & Total",
    "wizard.memory.mode.used_free": "Used & Free",
    "wizard.memory.used": "Used memory",
    "wizard.memory.total": "Total memory",
    "wizard.memory.free": "Free memory",
    "wizard.memory.unit": "Unit",
    "wizard.test": "Test",
    "wizard.test.running": "Trying it on Prometheus…",
    "wizard.test.ok": "✓ The expression works.",
    "wizard.test.no_series": "No series yet: the expression parses, but Prometheus has no data for it now.",
    "wizard.test.series": "{count} series",
    "wizard.test.missing_labels": "Some series lack the labels: {labels}",
    "wizard.test.not_measured": "not a measurement",
    "wizard.test.empty": "Enter an expression first.",
    "wizard.review.title": "Check what you entered, then save.",
    "wizard.review.none": "(none)",
    "wizard.edit.identity": "Edit the basics",
    "wizard.edit.metrics": "Edit labels and metrics",
    "wizard.back": "Back",
    "wizard.next": "Next",
    "wizard.save": "Save",
    "wizard.force": (
        "Save even if the checks fail (the device plugin or exporter is not installed yet; "
        "recorded in the audit log)"
    ),
    # Saving while Prometheus cannot be asked: the metrics go unchecked only when the admin says so.
    "wizard.unchecked.title": "Prometheus cannot be reached, so the metrics were not checked.",
    "wizard.unchecked.body": (
        "Nothing was saved. Saving checks each metric against Prometheus. You can save without that "
        'check, as the box "Save even if the checks fail" below does: the type is saved as entered, '
        "and the audit log records that its metrics were not checked. Check them again once "
        "Prometheus answers."
    ),
    "wizard.unchecked.save": "Save without checking the metrics",
    "wizard.restart": "Start over",
    "wizard.saved": "Saved the device type {name}.",
    "wizard.error.unexpected": (
        "It could not be saved. Try again in a moment; if it keeps failing, check the server's log."
    ),
    # --- The Add Device wizard's draft, kept in the database ---
    "wizard.draft.missing": "This draft was not found, so a new one was started.",
    "wizard.draft.unsaved": "The draft could not be saved. Try again in a moment.",
    # --- Editing a stored device type in the wizard ---
    "wizard.edit_mode.title": "Edit the device type {name}",
    "wizard.edit_mode.editing": "Editing {id}, starting from revision {revision}.",
    "wizard.edit_mode.official": (
        "An official type: its ID, name, vendor and resource key are the vendor's and cannot "
        "change; its labels and metrics can."
    ),
    "wizard.edit_mode.save": "Save changes",
    "wizard.edit_mode.saved": "Saved the changes to {name} (now revision {revision}).",
    "wizard.edit_mode.stale": (
        "Someone else changed this type: now revision {current}, you started from {started}. "
        "Reload brings in their changes; then apply yours again."
    ),
    "wizard.edit_mode.reload": "Reload",
    "wizard.edit_mode.not_found": "The device type {id} does not exist.",
    "wizard.edit_mode.action": "Edit",
}
