"""Dynamic Resource Allocation in the dev cluster: objects, CEL selectors, allocator, claim lifecycle."""
