"""The snapshot path: evaluation of a device type's readings, their assembly, paging, masking and refresh."""
