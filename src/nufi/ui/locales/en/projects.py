"""English texts of Admin → Projects."""

TEXTS: dict[str, str] = {
    "projects.title": "Projects",
    "projects.empty": "There are no projects yet. Create one above.",
    "projects.members": "Members",
    "projects.no_members": "no members",
    "projects.create.title": "New project",
    "projects.field.members": "Members (usernames, separated by commas or spaces)",
    "projects.field.username": "Username to add",
    "projects.action.create": "Create project",
    "projects.action.delete": "Delete",
    "projects.action.add_member": "Add member",
    "projects.action.remove_member": "Remove {user}",
    "projects.delete.title": "Delete the project {name}?",
    "projects.delete.body": (
        "The namespace {name} and everything in it are deleted. A dry run found what would go:"
    ),
    "projects.delete.objects.one": "{count} object goes with it:",
    "projects.delete.objects.other": "{count} objects go with it:",
    "projects.delete.nothing": "No workloads go with it.",
    "projects.delete.confirm": "Delete {name}",
    "projects.done.created": "Created the project {name}.",
    "projects.done.added": "Added {user} to {name}.",
    "projects.done.removed": "Removed {user} from {name}.",
    "projects.done.deleted": "Deleted the project {name}.",
}
