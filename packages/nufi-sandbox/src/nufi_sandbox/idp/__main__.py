"""`python -m nufi_sandbox.idp`: a Keycloak-shaped OpenID Connect provider on 127.0.0.1."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path

import uvicorn

from nufi_sandbox.idp.context import RealmContext
from nufi_sandbox.idp.keys import RealmKeys
from nufi_sandbox.idp.realm import DEFAULT_REALM, DEFAULT_USERS_FILE, load_realm
from nufi_sandbox.idp.server import create_app
from nufi_sandbox.loopback import configure_logging, loopback_config, loopback_parser

log = logging.getLogger("nufi_sandbox.idp")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = loopback_parser(
        "python -m nufi_sandbox.idp",
        "Serve a dev OpenID Connect provider shaped like a Keycloak realm (discovery, JWKS, "
        "token endpoint, login page, userinfo, logout) on 127.0.0.1.",
        default_port=8180,
    )
    parser.add_argument(
        "--users",
        type=Path,
        default=DEFAULT_USERS_FILE,
        help="YAML file with users and clients (default: admin/admin and user/user)",
    )
    parser.add_argument("--realm", default=DEFAULT_REALM, help=f"realm name (default {DEFAULT_REALM})")
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="keep the signing keys here so a restart still accepts earlier tokens (default: new keys)",
    )
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    spec = load_realm(args.users)
    keys = RealmKeys.load_or_create(args.state_dir)
    realm = RealmContext.create(
        name=args.realm, base_url=f"http://127.0.0.1:{args.port}", spec=spec, keys=keys, source=args.users
    )
    server = uvicorn.Server(loopback_config(create_app(realm), args.port, lifespan="off"))
    log.info(
        "identity provider for realm %s at %s (signing key %s, %d users, clients %s)",
        realm.name,
        realm.issuer,
        keys.signing_kid,
        len(spec.users),
        ", ".join(c.id for c in spec.clients),
    )
    await server.serve()


def main(argv: list[str] | None = None) -> None:
    configure_logging()
    args = parse_args(argv)
    try:
        # Read before serving so a broken users file is one clear line, not a traceback.
        load_realm(args.users)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
