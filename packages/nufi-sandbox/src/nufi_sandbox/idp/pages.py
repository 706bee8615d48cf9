"""The provider's HTML pages in the browser's language: Korean or English, by `Accept-Language`.

The sandbox never imports NuFi, so the few sentences a person reads here have a table of their own,
worded after Keycloak's own Korean login theme.
"""

from __future__ import annotations

from html import escape
from typing import Literal

from starlette.responses import HTMLResponse

Language = Literal["en", "ko"]
DEFAULT_LANGUAGE: Language = "en"

TEXTS: dict[Language, dict[str, str]] = {
    "en": {
        "sign_in.title": "Sign in to {realm}",
        "sign_in.username": "Username or email",
        "sign_in.password": "Password",
        "sign_in.submit": "Sign In",
        "sign_in.invalid": "Invalid username or password.",
        "error.title": "We are sorry...",
        "error.client": "Client not found.",
        "error.redirect_uri": "Invalid parameter: redirect_uri",
        "error.id_token_hint": "Invalid parameter: id_token_hint",
        "error.logout_redirect": "Invalid redirect uri",
        "logout.title": "You are logged out",
        "logout.body": "Your session has ended.",
    },
    "ko": {
        "sign_in.title": "{realm}에 로그인",
        "sign_in.username": "사용자 이름 또는 이메일",
        "sign_in.password": "비밀번호",
        "sign_in.submit": "로그인",
        "sign_in.invalid": "사용자 이름 또는 비밀번호가 올바르지 않습니다.",
        "error.title": "죄송합니다...",
        "error.client": "클라이언트를 찾을 수 없습니다.",
        "error.redirect_uri": "잘못된 매개변수: redirect_uri",
        "error.id_token_hint": "잘못된 매개변수: id_token_hint",
        "error.logout_redirect": "잘못된 리디렉션 URI",
        "logout.title": "로그아웃되었습니다",
        "logout.body": "세션이 종료되었습니다.",
    },
}

# Enough to read: a narrow column, each label above its field. Korean breaks between words.
_STYLE = (
    "<style>body{font-family:sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem;color:#1e293b}"
    "h1{font-size:1.5rem}label,input{display:block;width:100%;box-sizing:border-box}"
    "label{margin-top:1rem}input{padding:.5rem;margin-top:.25rem}"
    "#kc-login{margin-top:1.5rem;background:#1e293b;color:#fff;border:0;cursor:pointer}"
    "#input-error,#kc-error-message{color:#b91c1c}:lang(ko){word-break:keep-all}</style>"
)


def language_of(accept_language: str | None) -> Language:
    """The language a browser ranks highest of those the pages speak (by q, then by order);
    English when it names neither."""
    best: tuple[float, int, Language] | None = None
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in TEXTS:
            continue
        weight = _weight(params)
        if weight > 0 and (best is None or (weight, -index) > best[:2]):
            best = (weight, -index, primary)
    return best[2] if best is not None else DEFAULT_LANGUAGE


def _weight(params: str) -> float:
    """An entry's q (1 when it gives none, 0 when it is not a number from 0 to 1)."""
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value.strip())
            except ValueError:
                return 0.0
            return weight if 0.0 <= weight <= 1.0 else 0.0
    return 1.0


def words(language: Language, key: str, **params: str) -> str:
    return TEXTS[language][key].format(**params)


def page(language: Language, title: str, body: str, status: int = 200) -> HTMLResponse:
    """A whole page: `title` as its heading, `body` (HTML, already escaped) under it."""
    html = (
        f"<!DOCTYPE html>\n<html lang='{language}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title>{_STYLE}</head>\n<body>\n"
        f"<h1 id='kc-page-title'>{escape(title)}</h1>\n{body}\n</body></html>\n"
    )
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})


def message_page(language: Language, title: str, message: str, status: int) -> HTMLResponse:
    """A page that only says something: an error (Keycloak's `kc-error-message`) or news."""
    kind = "kc-error-message" if status >= 400 else "kc-info-message"
    body = f"<p id='{kind}'>{escape(words(language, message))}</p>"
    return page(language, words(language, title), body, status)
