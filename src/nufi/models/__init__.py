"""What the faces and the domains say to each other, below them all: request bodies, views, the rules
their fields are held to (PromQL expressions, resource keys) and how a reading is written with its unit,
importing only messages and errors."""
