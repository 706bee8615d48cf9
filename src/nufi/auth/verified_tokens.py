"""Tokens already verified, so that a caller presenting the same token again is not verified again.

An RS256 signature check costs far more than the rest of a typical request; a client sends the same
access token for its whole life. The cache holds, per token, the Principal it gave, its `exp` and
the `kid` of its signing key, under the SHA-256 of the token: a memory dump or a debugger shows no
token that could be replayed. An entry lives until the token's own `exp`, never beyond (not even by
the verifier's leeway), until it is revoked, or until less recently used entries push it out.
Whether its key is still published is the verifier's question (`TokenVerifier`), asked on each use.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from nufi.auth.principal import Principal

DEFAULT_MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class VerifiedToken:
    principal: Principal
    exp: float
    kid: str


def token_digest(token: str) -> bytes:
    # surrogatepass: a lone surrogate in a header must be a cache miss (and then a refusal), not a crash.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class VerifiedTokens:
    """At most `max_entries` verified tokens (0: none are kept), least recently used evicted first.

    `clock` gives epoch seconds, the scale of `exp`. Safe to use from several threads: `get` is
    called from synchronous code too (`TokenVerifier.cached`).
    """

    def __init__(
        self, max_entries: int = DEFAULT_MAX_ENTRIES, *, clock: Callable[[], float] = time.time
    ) -> None:
        if max_entries < 0:
            raise ValueError(f"max_entries must be 0 or more, not {max_entries}")
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[bytes, VerifiedToken] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def digests(self) -> tuple[bytes, ...]:
        """What the entries are keyed by, least recently used first (for tests and diagnostics)."""
        with self._lock:
            return tuple(self._entries)

    def get(self, token: str) -> VerifiedToken | None:
        """The entry of `token` while the token has not expired; an expired one is dropped."""
        digest = token_digest(token)
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None:
                return None
            if self._clock() >= entry.exp:
                del self._entries[digest]
                return None
            self._entries.move_to_end(digest)
            return entry

    def put(self, token: str, principal: Principal, *, exp: object, kid: str) -> bool:
        """Remember a verified token; False when it is not kept (no usable `exp`, already expired,
        or a cache of size 0)."""
        expires = _epoch_seconds(exp)
        if expires is None or self.max_entries == 0 or self._clock() >= expires:
            return False
        digest = token_digest(token)
        with self._lock:
            self._entries[digest] = VerifiedToken(principal=principal, exp=expires, kid=kid)
            self._entries.move_to_end(digest)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return True

    def revoke(self, token: str) -> None:
        with self._lock:
            self._entries.pop(token_digest(token), None)


def _epoch_seconds(exp: object) -> float | None:
    # Only a number is an expiry we can hold the entry to; PyJWT also accepts e.g. "1700000000",
    # and such a token is then simply verified each time.
    if isinstance(exp, bool) or not isinstance(exp, int | float):
        return None
    if isinstance(exp, float) and not math.isfinite(exp):
        return None
    # Whole seconds, as PyJWT reads `exp` (int()): a fraction must not outlive verification.
    try:
        return float(math.floor(exp))
    except OverflowError:
        return None
