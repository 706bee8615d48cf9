"""`nufi db upgrade` and `nufi db current`, in-process and as separate processes."""

from __future__ import annotations

import pytest
from sqlalchemy import make_url
from typer.testing import CliRunner

from nufi.cli import app
from nufi.db import head_revision
from support.env import env_without_nufi

# SQLAlchemy warns about session misuse (e.g. stale identities) instead of failing; here it fails.
pytestmark = pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")


def run(url: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["db", *args], env=env_without_nufi(NUFI_DATABASE_URL=url))
    return result.exit_code, result.stdout, result.stderr


def test_upgrade_then_current_reports_the_newest_revision(database_url: str) -> None:
    head = head_revision()
    shown = make_url(database_url).render_as_string(hide_password=True)

    code, out, _ = run(database_url, "current")
    assert code == 0
    assert out.strip() == f"{shown}: no schema yet (newest is {head}); run `nufi db upgrade`"

    code, out, _ = run(database_url, "upgrade")
    assert code == 0
    assert out.strip() == f"{shown}: upgraded from an empty schema to revision {head}"

    code, out, _ = run(database_url, "upgrade")
    assert (code, out.strip()) == (0, f"{shown}: already at revision {head}")

    code, out, _ = run(database_url, "current")
    assert (code, out.strip()) == (0, f"{shown}: at revision {head} (up to date)")


def test_an_unknown_revision_is_refused(database_url: str) -> None:
    code, out, err = run(database_url, "upgrade", "--revision", "no-such-revision")
    assert code == 1
    assert out == ""
    assert "no-such-revision" in err
    assert f"knows revisions up to {head_revision()}" in err


def test_an_unreachable_database_fails_with_a_message(unused_tcp_port: int) -> None:
    url = f"postgresql+asyncpg://nufi:pa55word@127.0.0.1:{unused_tcp_port}/nufi"
    code, out, err = run(url, "current")
    assert code == 1
    assert out == ""
    assert err.startswith(
        "nufi: Cannot read the schema revision of the database at postgresql+asyncpg://nufi:***@"
    )
    assert "pa55word" not in err


def test_an_unsupported_database_url_is_a_settings_error() -> None:
    code, _, err = run("mysql+aiomysql://nufi@db/nufi", "upgrade")
    assert code == 1
    assert "NUFI_DATABASE_URL" in err
    assert "'mysql'" in err
