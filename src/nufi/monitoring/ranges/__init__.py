"""Time ranges of a device type's metrics: the query checked, the PromQL, the shared cache, the result."""
