"""Pydantic models of the API's response bodies, each built from the domain object it shows."""
