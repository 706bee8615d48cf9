"""The device catalog: device types as data (`spec`), the DeviceFetcher interface a plugin implements
(`fetcher`), official presets, checks.

Import from the modules themselves: the package imports nothing, so reading a device type's spec (a
pack, the `nufi` command) does not load the catalog, the database or the cluster gateway.
"""
