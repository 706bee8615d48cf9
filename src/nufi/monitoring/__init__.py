"""Monitoring: snapshots and time ranges per device type, unit normalisation, pod attribution."""
