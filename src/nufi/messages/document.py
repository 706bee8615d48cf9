"""`docs/messages.md`: every message code, its fields and its sentence in each language.

Run `python -m nufi.messages.document > docs/messages.md` after changing a catalog; a test holds
the file to what this prints.
"""

from __future__ import annotations

import sys

from nufi.messages.catalog import CATALOG, LANGUAGES, fields_of

_HEAD = """# Message codes

Everything NuFi tells a person — problem bodies of the API, check results of the device wizard,
Pending and thermal reasons — carries a stable `code` and its `params`. The dashboard words each
from its catalog in Korean or English; the API answers `title` and `detail` in Korean for
`Accept-Language: ko` and in English otherwise, with `code` and `params` beside them, so a client
can word them itself. A param may itself be a message (`{"code": ..., "params": ...}`), worded in
the same language.

Codes are stable: a new meaning gets a new code. Problem titles are `title.<type>`.
This file is made by `python -m nufi.messages.document`; a test keeps it current.

On the wire a message is always `Message.to_data()`, `{"code", "params"}` with every message among
the params (alone, in a list or in a mapping) written the same way, and its pydantic model is
`nufi.messages.MessageModel`; `Message.from_data()` reads it back. The CLI's own texts (`cli.*`:
its help, labels and sentences) live in this catalog too and are listed here. The dashboard's labels live
in `nufi.ui.locales`, one module per language and area, and are not listed here; `nufi.ui.i18n`
joins them onto these areas, so the dashboard words a label and a message from one catalog with the
same renderer and its plural and list specs.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def document() -> str:
    lines = [
        _HEAD,
        "| Code | Fields | " + " | ".join(LANGUAGES) + " |",
        "|---|---|" + "---|" * len(LANGUAGES),
    ]
    for code in sorted(CATALOG["en"]):
        fields = ", ".join(f"`{name}`" for name in sorted(fields_of(CATALOG["en"][code])))
        texts = " | ".join(_cell(CATALOG[language][code]) for language in LANGUAGES)
        lines.append(f"| `{code}` | {fields} | {texts} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(document())
