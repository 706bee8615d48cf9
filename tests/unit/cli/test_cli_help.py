"""`--help` in the operator's language: every help text of the command line, and the words typer puts
around them, come from the Korean or English catalog by LANG / LC_ALL / LC_MESSAGES."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.testing import CliRunner

from nufi.cli import app
from nufi.cli.help_pages import WordedGroup
from nufi.messages import CATALOG, Language
from support.languages import english_sentences, korean_in, wrong_language

pytestmark = pytest.mark.unit

LOCALES: dict[Language, str] = {"ko": "ko_KR.UTF-8", "en": "en_US.UTF-8"}

# Each top-level group or command, and the codes of its help page's own texts.
PAGES: dict[tuple[str, ...], tuple[str, ...]] = {
    (): (
        "cli.help.app",
        "cli.help.serve",
        "cli.help.login",
        "cli.help.monitor",
        "cli.help.devices",
        "cli.help.labs",
        "cli.help.page.install_completion",
    ),
    ("serve",): ("cli.help.serve", "cli.help.serve.port", "cli.help.serve.ui_only"),
    ("version",): ("cli.help.version",),
    ("db",): ("cli.help.db", "cli.help.db.upgrade", "cli.help.db.current"),
    ("login",): ("cli.help.login", "cli.help.login.browser", "cli.help.option.server"),
    ("logout",): ("cli.help.logout", "cli.help.option.server"),
    ("whoami",): ("cli.help.whoami", "cli.help.option.token", "cli.help.option.output"),
    ("monitor",): ("cli.help.monitor", "cli.help.option.device_type", "cli.help.monitor.once"),
    ("devices",): ("cli.help.devices", "cli.help.devices.list", "cli.help.devices.check"),
    ("projects",): ("cli.help.projects", "cli.help.projects.list", "cli.help.projects.get"),
    ("deployments",): ("cli.help.deployments", "cli.help.deployments.create", "cli.help.deployments.scale"),
    ("labs",): ("cli.help.labs", "cli.help.labs.stop", "cli.help.labs.open"),
    ("thermal",): ("cli.help.thermal", "cli.help.thermal.status"),
}


@pytest.fixture
def speak(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Wide enough that rich does not wrap a help text over two lines of its panel.
    monkeypatch.setenv("COLUMNS", "300")
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    yield


def help_page(monkeypatch: pytest.MonkeyPatch, language: Language, *path: str) -> str:
    monkeypatch.setenv("LANG", LOCALES[language])
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.usefixtures("speak")
@pytest.mark.parametrize("path", list(PAGES), ids=lambda path: " ".join(path) or "nufi")
@pytest.mark.parametrize("language", ["ko", "en"])
def test_each_help_page_speaks_the_operators_language(
    monkeypatch: pytest.MonkeyPatch, language: Language, path: tuple[str, ...]
) -> None:
    page = help_page(monkeypatch, language, *path)
    for code in PAGES[path]:
        assert CATALOG[language][code] in page, code
    for code in ("cli.help.page.usage", "cli.help.page.options", "cli.help.page.help_option"):
        assert CATALOG[language][code] in page, code
    assert wrong_language(page, language) == [], page
    assert "cli.help." not in page


@pytest.mark.usefixtures("speak")
def test_the_marks_around_the_texts_follow_the_language_page_by_page(monkeypatch: pytest.MonkeyPatch) -> None:
    korean = help_page(monkeypatch, "ko", "deployments", "create")
    for mark in ("사용법:", "╭─ 인수", "╭─ 옵션", "[필수]", "[기본값: 1]", "[환경 변수: NUFI_PROJECT]"):
        assert mark in korean, mark
    english = help_page(monkeypatch, "en", "deployments", "create")
    for mark in (
        "Usage:",
        "╭─ Arguments",
        "╭─ Options",
        "[required]",
        "[default: 1]",
        "[env var: NUFI_PROJECT]",
    ):
        assert mark in english, mark
    assert korean_in(english) == []
    assert "╭─ 명령" in help_page(monkeypatch, "ko", "devices")
    assert "╭─ Commands" in help_page(monkeypatch, "en", "devices")


@pytest.mark.usefixtures("speak")
def test_lc_all_outranks_lang_for_help(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "ko_KR.UTF-8")
    page = help_page(monkeypatch, "en", "labs")
    assert CATALOG["ko"]["cli.help.labs"] in page
    assert english_sentences(page) == []


@pytest.mark.usefixtures("speak")
@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_usage_error_names_the_help_in_the_operators_language(
    monkeypatch: pytest.MonkeyPatch, language: Language
) -> None:
    monkeypatch.setenv("LANG", LOCALES[language])
    result = CliRunner().invoke(app, ["devices", "get"])
    assert result.exit_code == 2
    assert CATALOG[language]["cli.help.page.usage"] in result.output
    assert CATALOG[language]["cli.help.page.error"] in result.output
    tip = CATALOG[language]["cli.help.page.try_help"]
    assert tip.format(command_path="nufi devices get", help_option="--help") in result.output


def unworded_helps(command: TyperCommand | TyperGroup, language: Language, path: str = "nufi") -> list[str]:
    """Each command, option and argument under `command` whose help is not a text of the catalog's
    help codes in `language` (empty, a code left as it is, or a sentence of its own)."""
    texts = {text for code, text in CATALOG[language].items() if code.startswith("cli.help.")}
    found = [] if command.help in texts else [f"{path}: {command.help!r}"]
    context = typer.Context(command, info_name=command.name)
    for param in command.get_params(context):
        assert isinstance(param, TyperOption | TyperArgument), param
        if param.help not in texts:
            found.append(f"{path} {param.name}: {param.help!r}")
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            assert isinstance(sub, TyperCommand | TyperGroup)
            found.extend(unworded_helps(sub, language, f"{path} {name}"))
    return found


def built(monkeypatch: pytest.MonkeyPatch, language: Language, typer_app: typer.Typer) -> TyperGroup:
    monkeypatch.setenv("LANG", LOCALES[language])
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    command = typer.main.get_command(typer_app)
    assert isinstance(command, TyperGroup)
    return command


@pytest.mark.parametrize("language", ["ko", "en"])
def test_every_command_option_and_argument_has_a_help_from_the_catalog(
    monkeypatch: pytest.MonkeyPatch, language: Language
) -> None:
    command = built(monkeypatch, language, app)
    assert unworded_helps(command, language) == []
    commands = [name for name, sub in command.commands.items() if isinstance(sub, TyperGroup)]
    assert set(commands) == {"db", "devices", "projects", "deployments", "labs", "thermal"}


def test_the_walk_finds_an_option_without_a_worded_help(monkeypatch: pytest.MonkeyPatch) -> None:
    made_up = typer.Typer(cls=WordedGroup)

    @made_up.command("good", help="cli.help.version")
    def good() -> None: ...

    @made_up.command("bad")
    def bad(
        colour: str = typer.Option("red", help="the colour of the thing"),
        size: int = typer.Option(1),
    ) -> None:
        """A docstring is not a help from the catalog."""

    found = unworded_helps(built(monkeypatch, "ko", made_up), "ko")
    assert found == [
        "nufi: None",
        "nufi bad: 'A docstring is not a help from the catalog.'",
        "nufi bad colour: 'the colour of the thing'",
        "nufi bad size: None",
    ]
