"""What the repository ships from the models: the official presets as packs (`packs/official/`) and
the pack JSON Schema (`docs/device-pack.schema.json`). Tests hold the files to these, so they cannot
drift; `python -m nufi.packs.shipped <repository root>` writes them again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nufi.devices.presets import official_presets
from nufi.packs.export import pack_of
from nufi.packs.model import json_schema
from nufi.packs.text import dump_packs

SCHEMA_PATH = Path("docs/device-pack.schema.json")
OFFICIAL_DIR = Path("packs/official")


def official_pack_texts() -> dict[Path, str]:
    """Each official preset's pack, as export gives it for a type no admin has changed."""
    return {
        OFFICIAL_DIR / f"{preset.id}.yaml": dump_packs([pack_of(preset, None, None).document()])
        for preset in official_presets()
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_texts() -> dict[Path, str]:
    return {SCHEMA_PATH: schema_text(), **official_pack_texts()}


def main(root: Path) -> None:
    for path, text in shipped_texts().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
