"""English texts of what Deployments, Labs and Projects share: fields, actions, statuses and ages."""

TEXTS: dict[str, str] = {
    "workloads.project": "Project",
    "workloads.project_not_offered": (
        "There is no project {asked}, or you are not a member of it; showing {chosen} instead."
    ),
    "workloads.no_projects.title": "You are not a member of any project",
    "workloads.no_projects.body": "Workloads live in projects. Ask an administrator to add you to one.",
    "workloads.accelerator.option": "{name} — {free} free (at most {most} on one node now)",
    "workloads.accelerator.option_none_free": "{name} — none free now",
    "workloads.fit.not_now": (
        "No node has {count} {name} {count:plural:device|devices} free right now (at most {most} on one "
        "node): the pod will wait, Pending, until {count:plural:one frees|enough free} up."
    ),
    # "even" before a single device, "at all" after several.
    "workloads.fit.never": (
        "No node has {count:plural:even |}{count} {name} {count:plural:device|devices at all} "
        "(at most {most} on one node): the service refuses this count."
    ),
    "workloads.accelerator.none": (
        "No accelerator is available in the cluster. An administrator can enable a type "
        "under Admin → Devices."
    ),
    "workloads.field.name": "Name",
    "workloads.field.accelerator": "Accelerator",
    "workloads.field.count": "Accelerators per pod",
    "workloads.action.delete": "Delete",
    "workloads.action.cancel": "Cancel",
    "workloads.created": "Created",
    "workloads.age.s": "{n}s",
    "workloads.age.m": "{n}m",
    "workloads.age.h": "{n}h",
    "workloads.age.d": "{n}d",
    "workloads.status.Ready": "Ready",
    "workloads.status.Starting": "Starting",
    "workloads.status.Pending": "Pending",
    "workloads.status.Degraded": "Degraded",
    "workloads.status.Error": "Error",
    "workloads.status.ScaledDown": "Scaled down",
    "workloads.status.Stopped": "Stopped",
    "workloads.error.invalid": "Check the fields below.",
    "workloads.error.conflict": "The name is taken, or someone else changed this meanwhile.",
    "workloads.error.not_found": "Not found; it may have been deleted. Refresh the list.",
    "workloads.error.forbidden": "You have no access to this project.",
    "workloads.error.failed": "The request could not be carried out.",
    "workloads.error.unexpected": "Something unexpected went wrong; the server log has the details.",
    "workloads.quota.in_use": "Project quota: {used} of {quota} {name} in use by this project",
    "workloads.quota.unlimited": "Project quota: no limit on {name}",
    "workloads.fit.quota": (
        "The project's quota of {quota} {name} has room for {room} more: the service refuses {count}."
    ),
    "workloads.fit.quota_full": (
        "The project's quota of {quota} {name} is used up: the service refuses {total} more."
    ),
    "workloads.fit.quota_replicas": (
        "The project's quota of {quota} {name} has room for {room} more: {added} more "
        "{added:plural:replica|replicas} \N{MULTIPLICATION SIGN} {count} = {total} is refused. "
        "At most {fitting} {fitting:plural:replica fits|replicas fit}."
    ),
}
