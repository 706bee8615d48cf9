"""English: what the services say, area by area."""

from nufi.messages.en import common, web

AREAS: dict[str, dict[str, str]] = {
    "common": common.TEXTS,
    "web": web.TEXTS,
}
