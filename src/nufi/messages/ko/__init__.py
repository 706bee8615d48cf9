"""Korean (한국어), NuFi's first language: what the services say, area by area (each module's
`TEXTS`, found by `areas_of`)."""
