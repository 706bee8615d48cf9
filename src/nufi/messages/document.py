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
