"""What thermal protection keeps of what it did: each transition (`transitions`), the breaker's
announcements (`breaker_events`), and the records they are stored in and read from (`records`)."""
