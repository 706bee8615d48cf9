"""The page the browser lands on after `nufi login`, in Chromium: in the browser's language, whatever
the terminal's, photographed in Korean and in English."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from e2e.browser_support import LOCALES, reader_text, shot, speaks
from nufi.cli.loopback import LoopbackReceiver

WORDS = {
    "ko": "NuFi에 로그인했습니다. 이 창을 닫고 터미널로 돌아가세요.",
    "en": "Signed in to NuFi. You can close this window and return to the terminal.",
}


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_sign_in_page_speaks_the_browsers_language(
    browser: Browser, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    # The terminal speaks the other language: the page follows the browser, not the terminal.
    monkeypatch.setenv("LANG", "en_US.UTF-8" if language == "ko" else "ko_KR.UTF-8")
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    context = await browser.new_context(locale=LOCALES[language])
    try:
        page = await context.new_page()
        with LoopbackReceiver("state-1") as receiver:
            await page.goto(f"{receiver.redirect_uri}?code=c-1&state=state-1")
            assert receiver.wait(5) == {"code": "c-1", "state": "state-1"}
        await shot(page, f"cli-sign-in-done-{language}")
        assert (await reader_text(page)).strip() == WORDS[language]
        await speaks(page, language, "the sign-in page of `nufi login`")
    finally:
        await context.close()
