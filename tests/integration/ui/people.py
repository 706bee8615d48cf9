"""Who the simulated-user tests sign in as: named in a request header, resolved by the test main file."""

from __future__ import annotations

from nufi.auth import Principal

USER_HEADER = "x-test-user"
PEOPLE = {
    "admin": Principal(subject="s-admin", username="admin", roles=frozenset({"nufi-admin"})),
    "user": Principal(subject="s-user", username="user", roles=frozenset()),
}
