"""English texts of Workloads → Deployments."""

TEXTS: dict[str, str] = {
    "deployments.title": "Deployments",
    "deployments.empty": "This project has no deployments yet. Create one below.",
    "deployments.column.name": "Name",
    "deployments.column.status": "Status",
    "deployments.column.ready": "Ready / desired",
    "deployments.column.accelerator": "Accelerator (per pod)",
    "deployments.column.nodes": "Nodes",
    "deployments.column.reason": "Reason",
    "deployments.thermal": "Thermal control: {reason}",
    "deployments.column.age": "Age",
    "deployments.action.scale": "Scale",
    "deployments.action.apply": "Apply",
    "deployments.action.create": "Create deployment",
    "deployments.scale.title": "Scale {name}",
    "deployments.scale.range": "Replicas must be a whole number from 0 to {most}.",
    "deployments.delete.title": "Delete the deployment {name}?",
    "deployments.delete.body": (
        "Its Deployment, pods and Service in project {project} are deleted. This cannot be undone."
    ),
    "deployments.create.title": "New deployment",
    "deployments.field.image": "Container image",
    "deployments.field.args": "Arguments (split as a shell would)",
    "deployments.args.unclosed_quote": (
        "The arguments cannot be split: a quote is not closed. Close the quote."
    ),
    "deployments.args.lone_backslash": (
        "The arguments cannot be split: they end with a lone backslash. Remove it or write it twice."
    ),
    "deployments.field.replicas": "Replicas",
    "deployments.field.port": "Port",
    "deployments.field.readiness": "Readiness path",
    "deployments.field.readiness_hint": "Leave empty for no readiness probe.",
    "deployments.field.env": "Environment (KEY=VALUE per line, optional)",
    "deployments.env.bad_line": "A line is not KEY=VALUE: {line}",
    "deployments.done.created": "Created the deployment {name}.",
    "deployments.done.scaled": "Scaled {name} to {replicas} replicas.",
    "deployments.done.deleted": "Deleted the deployment {name}.",
}
