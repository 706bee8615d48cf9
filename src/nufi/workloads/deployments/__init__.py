"""Deployments: inference servers a project runs, their spec, how they read back and their status."""
