"""What the faces and the domains say to each other, below them all: request bodies, views and the
rules their fields are held to (PromQL expressions, resource keys), importing only messages and errors."""
