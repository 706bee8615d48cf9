"""The floor of `bench.http_reads`: the least a server must do to answer an authenticated read, in a
process of its own — a bare Starlette app on uvicorn that verifies the caller's RS256 bearer token with
PyJWT on every request (signature by a key of the issuer's JWKS, `iss`, `exp`) and answers fixed bytes.

Run: `python -m bench.http_reads.floor --issuer URL --jwks-uri URL --body FILE --port N`
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jwt
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def floor_app(issuer: str, jwks_uri: str, body: bytes) -> Starlette:
    keys = jwt.PyJWKClient(jwks_uri, cache_keys=True)

    async def read(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return Response(status_code=401)
        try:
            key = keys.get_signing_key_from_jwt(token)
            jwt.decode(token, key.key, algorithms=["RS256"], issuer=issuer, options={"verify_aud": False})
        except jwt.PyJWTError:
            return Response(status_code=401)
        return Response(body, media_type="application/json")

    return Starlette(routes=[Route("/{path:path}", read)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_reads.floor")
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--jwks-uri", required=True)
    parser.add_argument("--body", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    options = parser.parse_args(argv)
    app = floor_app(options.issuer, options.jwks_uri, options.body.read_bytes())
    uvicorn.run(app, host="127.0.0.1", port=options.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
