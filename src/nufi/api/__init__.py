"""HTTP face of NuFi: a thin FastAPI layer over the services."""

from nufi.api.app import create_app

__all__ = ["create_app"]
