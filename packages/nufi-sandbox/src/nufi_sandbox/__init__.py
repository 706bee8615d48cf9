"""Local stand-in world: dev cluster, identity provider, Prometheus launcher."""
