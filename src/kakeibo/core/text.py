"""Pure rules of the text a request may hold: which characters no field takes.

No pydantic, no HTTP: the models' text types (models/base.checked_text) and the values of rules'
conditions (core.rules, whose values are free JSON) refuse the same characters.
"""

from __future__ import annotations

import unicodedata

# Unicode categories never accepted: controls (NUL, BEL, ESC...), surrogates, private use, unassigned.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})
# Bidirectional embeddings, overrides and isolates: they make text display other than it reads
# ("Trojan Source"), so no field takes them, not even a memo, which takes other format characters.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NEWLINES = "\n\t"  # what a memo may hold of the controls


def refused_character(text: str, *, allow_newlines: bool = False, allow_format: bool = False) -> str | None:
    """The first character of `text` no field takes (None: every one is good). `allow_newlines`: line
    breaks and tabs are good (a memo); `allow_format`: format characters other than the bidirectional
    ones are good (a memo's emoji joined by a zero-width joiner)."""
    for ch in text:
        if allow_newlines and ch in NEWLINES:
            continue
        category = unicodedata.category(ch)
        if ch in BIDI_CONTROLS or category in REFUSED_CATEGORIES or (category == "Cf" and not allow_format):
            return ch
    return None


def code_point(ch: str) -> str:
    """A character as an error names it: U+0007."""
    return f"U+{ord(ch):04X}"
