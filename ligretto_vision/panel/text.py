"""Names and notes in any script: what the panel accepts, how it reads a name from a header,
how it writes one into a CSV cell and onto the video.

- Names are kept as typed (Unicode NFC, runs of spaces made one): "Łukasz", "Zoë 🎲", "李雷".
- Control characters, lone surrogates and the bidi embedding/override/isolate characters
  (which turn the text after them around, "Anna‮ 99" shows as "Anna 99" reversed) are
  refused with a clear message; zero-width joiners, which emoji and some scripts need, are not.
- A header carries only Latin-1: the panel's page sends `X-Who` percent-encoded UTF-8
  (`encodeURIComponent`); raw UTF-8 bytes, as curl sends them, are read as UTF-8 too.
"""
from __future__ import annotations

import unicodedata
from urllib.parse import unquote

BIDI_CONTROLS = {"\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
                 "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI", "\u061c": "ALM",
                 "\u200e": "LRM", "\u200f": "RLM"}
LINE_BREAKS = {"\u2028", "\u2029", "\u0085"}


def refusal(text: str, what: str = "a name") -> str | None:
    """Why `text` cannot be used as `what`, or None when it can."""
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in BIDI_CONTROLS:
            return f"{what} cannot hold the direction control character U+{ord(ch):04X} ({BIDI_CONTROLS[ch]})"
        if cat == "Cc" or ch in LINE_BREAKS:
            return f"{what} cannot hold the control character U+{ord(ch):04X}"
        if cat == "Cs":
            return f"{what} cannot hold a lone surrogate (U+{ord(ch):04X}): it is not text"
        if ch in ("\ufffe", "\uffff"):
            return f"{what} cannot hold the non-character U+{ord(ch):04X}"
    return None


def clean_text(text: str, what: str = "a name") -> str:
    """NFC, spaces tidied; ValueError (a 422) for characters a name or note cannot hold."""
    why = refusal(text, what)
    if why:
        raise ValueError(why)
    return " ".join(unicodedata.normalize("NFC", text).split())


def same_name_key(name: str) -> str:
    """Two names a person would take for the same: case and accents as typed, compared caselessly."""
    return unicodedata.normalize("NFC", name).casefold()


def header_text(value: str | None) -> str:
    """A header value as the text that was meant: percent-encoded UTF-8 or raw UTF-8 bytes."""
    if not value:
        return ""
    try:  # the server reads header bytes as Latin-1: raw UTF-8 (curl -H "X-Who: Zoë") comes back whole
        value = value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    if "%" in value:
        try:
            value = unquote(value, errors="strict")
        except UnicodeDecodeError:
            raise ValueError("X-Who: percent-encoded bytes that are not UTF-8") from None
    return value


CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A text cell a spreadsheet will not run as a formula ("=HYPERLINK(...)" is shown, not followed)."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return "'" + value
    return value


# ---- the video: OpenCV's built-in fonts draw ASCII only ------------------------------------------------
_LATIN = {"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "ı": "i", "ß": "ss",
          "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Þ": "Th", "þ": "th", "Ð": "D", "ð": "d"}


def ascii_name(name: str, fallback: str) -> str:
    """The name as the video can draw it: accents dropped ("Łukasz" -> "Lukasz", "Zoë 🎲" -> "Zoe"),
    else (another script: "李雷", "Иван") the player's id."""
    out = []
    for ch in unicodedata.normalize("NFKD", name):
        ch = _LATIN.get(ch, ch)
        if all(" " <= c <= "~" for c in ch):
            out.append(ch)
    text = " ".join("".join(out).split())
    letters = sum(c.isalnum() for c in text)
    return text if letters >= max(1, sum(c.isalnum() for c in name) // 2) else fallback
