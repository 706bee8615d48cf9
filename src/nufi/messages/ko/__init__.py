"""Korean (한국어), NuFi's first language: what the services say, area by area."""

from nufi.messages.ko import common, web

AREAS: dict[str, dict[str, str]] = {
    "common": common.TEXTS,
    "web": web.TEXTS,
}
