"""Signing a browser in to one lab, on the lab's own origin, from its dashboard session.

The dashboard's session cookie never reaches a lab's host (it is host-only, and the lab host is
another name), so the dashboard hands the browser a *grant*: a value sealed under a key derived from
NUFI_DASHBOARD_SESSION_SECRET (HKDF, a purpose of its own), naming one lab and the session, good for
GRANT_SECONDS and once. The lab's host exchanges it for a *lab cookie*, sealed under another derived
key, naming the same lab and session. Every request with that cookie resolves the session again, so
signing out of the dashboard (or the session ending any other way) ends the lab cookie too.

A grant is also bound to the browser that asked for it, as OAuth's `state` binds a code: the lab's
host first gives the browser a random state in a cookie of its own, the dashboard seals the state's
hash into the grant, and the lab's host takes the grant only with that cookie. A grant read from a
log or a history, or one an attacker obtained for their own session and slipped to someone else,
opens nothing in another browser.

Both name the session by the SHA-256 of its id — the key of its row, which `WebSessions.resolve_by_hash`
resolves — never by the id: whoever could open a grant or a lab cookie (the key is derived from the
dashboard's secret, but a lab pass is handed to lab hosts and sits in URLs) still holds nothing that
signs a browser in to the dashboard. And they are sealed in Fernet (AES-CBC with an HMAC): a reader of
a URL or a cookie learns nothing, and nothing sealed for one purpose opens as another (a grant is not
a cookie, a lab cookie is not a dashboard session).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import InvalidToken

from nufi.auth.web_sessions import is_session_hash
from nufi.auth.web_tokens import SealBroken, fernet_for

GRANT_PURPOSE = b"nufi lab sign-in grant v1"
COOKIE_PURPOSE = b"nufi lab cookie v1"
RETURN_PURPOSE = b"nufi lab sign-in return address v1"
# How long a lab's host trusts a sealed dashboard address it is handed back (see `seal_return`).
RETURN_SECONDS = 600
# Long enough for two redirects on a slow link, short enough that a grant copied from a URL (history,
# a screenshot) is dead by the time anyone reads it.
GRANT_SECONDS = 60
# Grants spent, remembered until they would have expired anyway; a replica holds at most this many.
MAX_SPENT_GRANTS = 100_000


@dataclass(frozen=True)
class LabPass:
    """What a grant or a lab cookie says: which lab, for which dashboard session (by the SHA-256 of
    its id, `nufi.auth.web_sessions.session_hash`)."""

    project: str
    name: str
    session_hash: str


class LabGrants:
    def __init__(self, secret: str, *, cookie_seconds: float, clock: Callable[[], float] = time.time) -> None:
        self._grants = fernet_for(secret, GRANT_PURPOSE)
        self._cookies = fernet_for(secret, COOKIE_PURPOSE)
        self._returns = fernet_for(secret, RETURN_PURPOSE)
        self._cookie_seconds = int(cookie_seconds)
        self._clock = clock
        self._spent: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def grant(self, lab: LabPass, *, state: str) -> str:
        """A grant of `lab` to the browser holding `state` (its lab sign-in state cookie)."""
        payload = {**_payload(lab), "nonce": secrets.token_urlsafe(16), "state": _digest(state)}
        return self._grants.encrypt_at_time(json.dumps(payload).encode(), int(self._clock())).decode("ascii")

    def redeem(self, sealed: str, *, state: str) -> LabPass:
        """The lab and session a grant names, spending it; SealBroken when it is altered, sealed under
        another secret, older than GRANT_SECONDS, for a browser holding another `state`, or spent
        already (on this replica)."""
        payload = _open(self._grants, sealed, GRANT_SECONDS, self._clock())
        if not state or payload.get("state") != _digest(state):
            raise SealBroken("it was asked for by another browser")
        nonce = payload.get("nonce")
        if not isinstance(nonce, str):
            raise SealBroken("the grant has no nonce")
        with self._lock:
            now = self._clock()
            while self._spent and next(iter(self._spent.values())) <= now:
                self._spent.popitem(last=False)
            if nonce in self._spent:
                raise SealBroken("the grant was used already")
            self._spent[nonce] = now + GRANT_SECONDS + 1
            while len(self._spent) > MAX_SPENT_GRANTS:
                self._spent.popitem(last=False)
        return _lab_pass(payload)

    def seal_return(self, dashboard_url: str) -> str:
        """The dashboard's address, sealed for the lab's host to send the browser back to: a lab's
        host follows no address it did not seal itself (it would hand the state to whoever named it)."""
        return self._returns.encrypt_at_time(dashboard_url.encode(), int(self._clock())).decode("ascii")

    def open_return(self, sealed: str) -> str:
        try:
            return self._returns.decrypt_at_time(
                sealed.encode("ascii"), RETURN_SECONDS, int(self._clock())
            ).decode()
        except (InvalidToken, ValueError, UnicodeError):
            raise SealBroken("the return address cannot be opened") from None

    def cookie(self, lab: LabPass) -> str:
        payload = _payload(lab)
        return self._cookies.encrypt_at_time(json.dumps(payload).encode(), int(self._clock())).decode("ascii")

    def open_cookie(self, sealed: str) -> LabPass:
        """The lab and session a lab cookie names; SealBroken when it cannot be opened or outlived the
        longest dashboard session."""
        return _lab_pass(_open(self._cookies, sealed, self._cookie_seconds, self._clock()))


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _payload(lab: LabPass) -> dict[str, str]:
    return {"project": lab.project, "name": lab.name, "session_hash": lab.session_hash}


def _open(fernet: Any, sealed: str, ttl: int, now: float) -> dict[str, Any]:
    try:
        payload = json.loads(fernet.decrypt_at_time(sealed.encode("ascii"), ttl, int(now)))
    except (InvalidToken, ValueError, UnicodeError):
        raise SealBroken(
            "the lab pass cannot be opened: altered, too old or sealed under another secret"
        ) from None
    if not isinstance(payload, dict):
        raise SealBroken("the lab pass holds no lab")
    return payload


def _lab_pass(payload: dict[str, Any]) -> LabPass:
    project, name, session = payload.get("project"), payload.get("name"), payload.get("session_hash")
    if not (isinstance(project, str) and isinstance(name, str) and isinstance(session, str)):
        raise SealBroken("the lab pass holds no lab")
    if not is_session_hash(session):
        raise SealBroken("the lab pass names no session")
    return LabPass(project=project, name=name, session_hash=session)
