"""English: what the services say, area by area (each module's `TEXTS`, found by `areas_of`)."""
