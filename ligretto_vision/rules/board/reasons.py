"""Why a placement on the board is illegal: the six codes of BOARD-SCENES.md's `place` events,
with the words a player reads (as `rules/reasons.py` does for the card game)."""
from __future__ import annotations

from enum import StrEnum


class BoardReason(StrEnum):
    AFTER_STOP = "after-stop"
    COVERS_CARD = "covers-card"
    NOT_ADJACENT = "not-adjacent"
    CORNER_ONLY = "corner-only"
    COLOUR_MISMATCH = "colour-mismatch"
    SWAPPED = "swapped"

    @property
    def text(self) -> str:
        """Why, said so a player understands it."""
        return _TEXT[self]

    @property
    def said(self) -> str:
        """The same, short enough for a list of last plays."""
        return _SAID[self]


# the order the checks are made in (`legality.judge_place`): the first that applies is the reason
PRECEDENCE = (BoardReason.AFTER_STOP, BoardReason.COVERS_CARD, BoardReason.NOT_ADJACENT,
              BoardReason.CORNER_ONLY, BoardReason.COLOUR_MISMATCH, BoardReason.SWAPPED)

_TEXT = {
    BoardReason.AFTER_STOP: "it was laid after \u201cLigretto Stop\u201d (or after nobody could play)",
    BoardReason.COVERS_CARD: "it covers a card, a joker or a token already on the board",
    BoardReason.NOT_ADJACENT: "it shares no edge with the field of a token this player may lay at",
    BoardReason.CORNER_ONLY: "it touches the token's field only at a corner",
    BoardReason.COLOUR_MISMATCH: "its colours are not the colours of the fields it covers",
    BoardReason.SWAPPED: "its colours lie the wrong way round",
}
_SAID = {
    BoardReason.AFTER_STOP: "after the stop",
    BoardReason.COVERS_CARD: "covers a card",
    BoardReason.NOT_ADJACENT: "not next to a token",
    BoardReason.CORNER_ONLY: "corner only",
    BoardReason.COLOUR_MISMATCH: "wrong colours",
    BoardReason.SWAPPED: "colours swapped",
}
