"""Why a placement on the board is illegal: the six codes of BOARD-SCENES.md's `place` events.
The order they are checked in, the first that applies being the reason, is `legality.judge_place`'s."""
from __future__ import annotations

from enum import StrEnum


class BoardReason(StrEnum):
    AFTER_STOP = "after-stop"
    COVERS_CARD = "covers-card"
    NOT_ADJACENT = "not-adjacent"
    CORNER_ONLY = "corner-only"
    COLOUR_MISMATCH = "colour-mismatch"
    SWAPPED = "swapped"
