"""Times on the reader's clock, and the page settings that make text read right in its language.

The server does not know the browser's time zone, so a time goes out as a `<time>` element holding
the instant (`datetime`, UTC) with UTC as its text and its tooltip; a script in the page head shows it
in the browser's time zone and language as soon as it is on the page, and again whenever the page
redraws it. Without JavaScript the UTC text stays, and is still right.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from nicegui import ui
from nicegui.elements.mixins.text_element import TextElement

from nufi.ui.i18n import Language

# Korean breaks lines between words, not inside them (CSS `word-break: keep-all`); a long token with
# no space in it (a resource key, a URL) may still break rather than overflow.
_KOREAN_CSS = "<style>body{word-break:keep-all;overflow-wrap:anywhere}</style>"

_LOCAL_TIMES = """<script>
(() => {
  const options = {year: 'numeric', month: '2-digit', day: '2-digit',
                   hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false};
  const show = () => document.querySelectorAll('time[data-local]').forEach((element) => {
    const at = new Date(element.getAttribute('datetime'));
    if (isNaN(at.getTime())) return;
    const text = at.toLocaleString(document.documentElement.lang || undefined, options);
    if (element.textContent !== text) element.textContent = text;
  });
  new MutationObserver(show).observe(document.documentElement,
                                     {subtree: true, childList: true, characterData: true});
  document.addEventListener('DOMContentLoaded', show);
})();
</script>"""


def page_head(language: Language) -> None:
    """Set the page's language (screen readers, fonts, line breaks) and its local-time script."""
    ui.add_head_html(f"<script>document.documentElement.lang = {language!r};</script>")
    if language == "ko":
        ui.add_head_html(_KOREAN_CSS)
    ui.add_head_html(_LOCAL_TIMES)


def utc_text(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def moment(at: datetime | float) -> TextElement:
    """`at` on the reader's clock, UTC in its tooltip."""
    instant = datetime.fromtimestamp(at, UTC) if isinstance(at, int | float) else at.astimezone(UTC)
    shown = utc_text(instant)
    element = TextElement(tag="time", text=shown)
    element.props(f'datetime="{instant.isoformat()}" data-local title="{escape(shown)}"')
    return element


def moment_cell_slot(column: str) -> str:
    """A table's body-cell slot that shows column `column` (an ISO instant) like `moment` does."""
    return (
        f'<q-td key="{column}" :props="props">'
        '<time data-local :datetime="props.value" :title="props.row.' + column + '_utc">'
        "{{ props.row." + column + "_utc }}</time></q-td>"
    )
