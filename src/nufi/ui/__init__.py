"""The dashboard: NiceGUI pages over the same services as the REST API."""
