"""The dashboard's pages; each parses what the URL says, calls one service with the principal, renders."""
