"""The dashboard's texts, one module per language and area: `locales/<language>/<area>.py` holds
that area's `TEXTS`, and each language's package lists its areas in `AREAS`.

`nufi.ui.i18n` joins a language's areas into its catalog and refuses a key two areas define.
"""
