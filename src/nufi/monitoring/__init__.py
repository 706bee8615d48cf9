"""Monitoring: snapshots and time ranges per device type, unit normalisation, pod attribution.

A snapshot's path is in `snapshots/`, a time range's in `ranges/`; the service, its settings and the
contracts both share sit at the root. Import from the modules themselves: the package re-exports
nothing, so a module that needs one snapshot type does not load the service.
"""
