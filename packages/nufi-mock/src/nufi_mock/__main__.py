"""`python -m nufi_mock`: the same as the `nufi-mock` command."""

from nufi_mock.cli import app

app(prog_name="nufi-mock")
