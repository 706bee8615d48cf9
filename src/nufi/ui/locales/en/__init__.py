"""English: the dashboard's texts, area by area (each module's `TEXTS`, found by `areas_of`)."""
