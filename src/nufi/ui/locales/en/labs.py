"""English texts of Workloads → Labs."""

TEXTS: dict[str, str] = {
    "labs.title": "Labs",
    "labs.empty": "This project has no labs yet. Create one below.",
    "labs.column.name": "Name",
    "labs.column.kind": "Kind",
    "labs.column.status": "Status",
    "labs.column.accelerator": "Accelerator (per pod)",
    "labs.column.storage": "Storage",
    "labs.column.reason": "Pending reason",
    "labs.column.age": "Age",
    "labs.action.open": "Open",
    "labs.action.stop": "Stop",
    "labs.action.start": "Start",
    "labs.action.create": "Create lab",
    "labs.create.title": "New lab",
    "labs.field.kind": "Kind",
    "labs.field.storage": "Home volume (GiB)",
    "labs.delete.title": "Delete the lab {name}?",
    "labs.delete.body": (
        "The lab server and its home volume, with every file saved there, are deleted. This cannot be undone."
    ),
    "labs.done.created": "Created the lab {name}.",
    "labs.done.stop": "Stopped the lab {name}; its home volume stays.",
    "labs.done.start": "Starting the lab {name} again.",
    "labs.done.deleted": "Deleted the lab {name}.",
}
