"""The `continue` token of a paginated list: where the next page starts, at the first page's version.

The counterpart of the continue key of `k8s.io/apiserver/pkg/storage`: opaque to clients, carrying the
list's resourceVersion and the last key served; a token that does not decode is a 400 Bad Request.
"""

from __future__ import annotations

import base64
import json

from nufi_sandbox.devcluster import errors


def encode_continue(list_rv: int, start: str) -> str:
    """A token for the page after the item at `start` ("namespace/name") of the list at `list_rv`."""
    return base64.urlsafe_b64encode(json.dumps({"rv": list_rv, "start": start}).encode()).decode()


def decode_continue(token: str) -> tuple[str, int]:
    """(start, list_rv) of a token; a 400 Bad Request for anything else, as the API server answers."""
    try:
        decoded = json.loads(base64.urlsafe_b64decode(token.encode()))
        return str(decoded["start"]), int(decoded["rv"])
    except (ValueError, KeyError, TypeError) as exc:
        raise errors.bad_request(f"continue key is not valid: {exc}") from None
