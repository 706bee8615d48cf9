"""The dashboard's texts, one module per language and area: `locales/<language>/<area>.py` holds
that area's `TEXTS`; `nufi.messages.areas_of` finds a language's areas.

`nufi.ui.i18n` joins them onto the messages' areas into the one catalog the dashboard words from,
and refuses a key two areas define.
"""
