"""The officially supported accelerators, one module per vendor: each a preset of the device-type spec,
with a fetcher of its own only where the vendor's exporter needs code."""
