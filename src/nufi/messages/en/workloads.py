"""English: what the workloads services say (projects, deployments, labs, accelerators), and why a
workload waits or broke, read from Kubernetes' own words."""

TEXTS: dict[str, str] = {
    # Names
    "name.required": "{field} is required: give a lowercase name such as 'llama-serve'",
    "name.too_long": "{field} {head!r}... is {length} characters long; at most {most} are allowed",
    "name.not_dns_label": (
        "{field} {value!r} is not a DNS-1123 label: use only lowercase letters, digits and '-', "
        "starting and ending with a letter or digit (e.g. 'llama-serve')"
    ),
    "username.required": "{field} is required: give the person's username",
    "username.too_long": "{field} is {length} characters long; at most {most} are allowed",
    "username.capitals": (
        "{field} {value!r} has capital letters; usernames are lower-case, as the identity provider "
        "stores them: use {lower!r}"
    ),
    "username.bad_characters": (
        "{field} {value!r} has characters a username may not have: use only lowercase ASCII letters, "
        "digits, '.', '_', '-' and '@' (e.g. 'kim.jiwoo')"
    ),
    "username.length": "{field} must be 1 to {most} characters long",
    "env_name.length": "{field} must be 1 to {most} characters long (e.g. 'MODEL_NAME')",
    "env_name.invalid": (
        "{field} {value!r} is not an environment variable name: use letters, digits and '_', "
        "not starting with a digit (e.g. 'MODEL_NAME')"
    ),
    # Projects
    "project.not_found": "There is no project {project!r}.",
    "project.not_member": (
        "user {username!r} is not a member of project {project!r}; ask an administrator to add you"
    ),
    "project.name_taken": (
        "a namespace named {project!r} already exists in the cluster; choose another project name"
    ),
    "project.role_binding_refused": (
        "Kubernetes refused NuFi the RoleBinding that lets it manage workloads in project {project!r} "
        "(HTTP {status}: {kubernetes}); grant its ServiceAccount {account} the ClusterRole "
        "nufi-project-manager (deploy/kustomize/base/rbac-projects.yaml), or set NUFI_PROJECT_ROLE empty"
    ),
    "project.members_full": "project {project!r} already has {most} members, the most it may have",
    "project.too_many_members": "a project may have at most {most} members",
    "project.members_kept_changing": (
        "the members of project {project!r} kept changing while this change was applied; try again"
    ),
    # Accelerators
    "accelerator.unknown_type": (
        "there is no device type {device_type!r}; choose one of GET /api/v1/projects/<project>/accelerators"
    ),
    "accelerator.type_disabled": (
        "{name} is disabled; an administrator can enable it, or choose another device type"
    ),
    "accelerator.not_offered": (
        "no node of the cluster has {name} devices; choose a device type the cluster has"
    ),
    "accelerator.too_many": (
        "no node can ever give {count} {name} to one pod: {figures:list}; ask for at most {most}"
    ),
    "accelerator.node_has": "{node} has {count}",
    "accelerator.uncountable": "the {name} devices cannot be counted: {reason}",
    # Deployments
    "workload.name_taken": (
        "a {kind} named {name!r} already exists in project {project!r}; choose another name"
    ),
    "workload.kind_named.deployment": "deployment",
    "workload.kind_named.lab": "lab",
    "deployment.service_taken": (
        "a Service named {name!r} already exists in project {project!r}; choose another deployment name"
    ),
    "deployment.not_found": "There is no deployment {deployment!r} in project {project!r}.",
    "deployment.replicas_range": "replicas must be between 0 and {most}, got {replicas}",
    "deployment.image_invalid": (
        "an image reference has no spaces or control characters (e.g. 'vllm/vllm:0.6')"
    ),
    "deployment.item_too_long": "each item may be at most {most} characters long",
    "deployment.readiness_path_invalid": (
        "a readiness path starts with '/' and has no spaces (e.g. '/health')"
    ),
    "deployment.env_duplicate": "env names must be unique: {name!r} is given twice",
    # Labs
    "lab.no_such_lab": "project {project!r} has no lab named {lab!r}",
    "lab.name_too_long": (
        "name {name!r} is {length} characters long; a lab's name may have at most {most} "
        "(its pods and revisions are named after it)"
    ),
    "lab.name_needs_letter": (
        "name {name!r} must start with a letter: it also names the lab's Service (e.g. 'lab-{name}')"
    ),
    "lab.object_name_taken": (
        "a {kind} named {name!r} already exists in the project; choose another name for the lab"
    ),
    # Why a workload waits, in the accelerator's words
    "workload.pending.device_type_gone": "device type {device_type!r} no longer exists",
    "workload.pending.no_node_has_key": "no node of the cluster has {name} devices",
    "workload.pending.no_free": "no node has {count} free {name}: {figures:list}",
    "workload.pending.ruled_out": (
        "{nodes} {fitting:plural:has|have} {count} free {name}, but the scheduler ruled them out "
        "for another reason (see the pod's events)"
    ),
    "workload.pending.with_scheduler": "{reason}: {scheduler}",
    "workload.pending.waiting": "waiting for the scheduler",
    # ... and in the scheduler's, classified
    "workload.pending.no_node": (
        "none of the {total} {total:plural:node|nodes} can take the pod: {causes:list}"
    ),
    "workload.pending.unschedulable": 'the scheduler cannot place the pod: "{kubernetes}"',
    "workload.cause.insufficient": "{nodes} {nodes:plural:node lacks|nodes lack} free {what}",
    "workload.cause.taint": (
        "{nodes} {nodes:plural:node has|nodes have} a taint the pod does not tolerate ({taint})"
    ),
    "workload.cause.selector": (
        "{nodes} {nodes:plural:node does|nodes do} not match the pod's node selector or affinity"
    ),
    "workload.cause.cordoned": "{nodes} {nodes:plural:node is|nodes are} cordoned",
    "workload.cause.ports": "{nodes} {nodes:plural:node has|nodes have} the pod's ports taken",
    "workload.cause.too_many_pods": "{nodes} {nodes:plural:node holds|nodes hold} as many pods as allowed",
    "workload.cause.volume": (
        "{nodes} {nodes:plural:node cannot|nodes cannot} reach the pod's volume (volume node affinity)"
    ),
    "workload.cause.unbound_claims": "the pod's PersistentVolumeClaim is not bound yet",
    "workload.cause.other": '{nodes} {nodes:plural:node|nodes}: "{text}"',
    "workload.cause.text": '"{text}"',
    # What broke
    "workload.failure.image_pull": "container {container!r} cannot pull its image ({kind})",
    "workload.failure.invalid_image": "container {container!r} names an image that cannot be read ({kind})",
    "workload.failure.crash_loop": (
        "container {container!r} keeps crashing and is restarted after a wait ({kind})"
    ),
    "workload.failure.config": (
        "container {container!r} refers to a Secret or ConfigMap that is missing or invalid ({kind})"
    ),
    "workload.failure.create_container": "container {container!r} cannot be created or started ({kind})",
    "workload.failure.pod_failed": "the pod failed",
    "workload.failure.pod_exited": "the pod has exited",
    "workload.failure.node_short": (
        "the node turned the pod away: its {what} were not available when the pod started"
    ),
    "workload.failure.device_allocation": (
        "the node's device plugin could not hand the pod its devices ({kind})"
    ),
    "workload.failure.evicted": "the pod was evicted from its node",
    "workload.failure.progress_deadline": (
        "the rollout made no progress within its deadline (ProgressDeadlineExceeded)"
    ),
    # Quotas
    "quota.exceeded": "Project {project!r} has no room for {more} more {what}. {left} {fix}",
    "quota.left.some": "Its quota allows {hard} and {used} are in use, so only {room} more can be used.",
    "quota.left.none": "Its quota of {hard} is used up.",
    "quota.fix.fewer": "Ask for fewer, or ask an admin to raise the quota.",
    "quota.fix.replicas": ("Lower the replicas to {replicas} or fewer, or ask an admin to raise the quota."),
    "quota.fix.admin": "Ask an admin to raise the quota.",
    "quota.amount.count": "{count}",
    "quota.resource.storage": "storage",
    "quota.resource.pods": "pods",
    "quota.resource.cpu": "CPU",
    "quota.resource.memory": "memory",
    "quota.resource.ephemeral_storage": "local storage",
    "quota.resource.other": "{resource}",
    "quota.unknown_type": (
        "there is no device type {device_type!r}: name a type of GET /api/v1/devices by its id"
    ),
    "quota.shared_key": (
        "device types {device_type!r} and {other!r} both use {resource_key}, which a quota limits as one: "
        "give a count for only one of them"
    ),
    "quota.kept_changing": (
        "the quota of project {project!r} kept changing while this change was applied; try again"
    ),
    "workload.quota_exceeded": "project quota: {what} limited to {limit}, {used} in use",
    "workload.failure.quota_exceeded": "the project's quota leaves no room for the pods",
    "workload.failure.replicas": "Kubernetes cannot create the pods (ReplicaFailure)",
    "workload.failure.other": 'Kubernetes reports: "{kubernetes}"',
}
