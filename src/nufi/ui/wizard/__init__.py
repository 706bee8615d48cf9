"""The Add Device wizard's draft: what the admin has typed so far, and how it becomes the catalog's models."""
