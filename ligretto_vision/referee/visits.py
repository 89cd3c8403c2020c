"""Which piles an arm came over since each was last looked at for a card laid neatly on its top.

A small change on a pile is looked at every turn for a card of the top's colour laid on it
(`Referee._early_look`, 0.1 s a look). A shaking camera, a lamp and the encoder's smear make such
small changes every few frames, and almost none of them follows a card: no card is laid where no
hand came. So a pile is looked at that way only when, since its last such look (one that read its
top surely or found a card: a look through a hand's shadow has not seen it, and looks again for a
moment, `look_again_s`), an arm covered its top in some frame, or much of the top's place moved in
one (a hand the seat map lost), or the camera was found moved (a cut-out off the card through the
old mapping reads the old top). This is kept per pile, not in the change's own arms' history: a
flickering light takes a place in again and again, and the arm that laid a card there falls out
of that history.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ligretto_vision.recognise.patches import Pose
from ligretto_vision.track.piles import TrackedPile

# a card's place -> its low-res window (x, y, w, h) and the mask of its pixels in that window
RegionOf = Callable[[Pose], tuple[tuple[int, int, int, int], np.ndarray]]


class ArmVisits:
    def __init__(self) -> None:
        self._came: dict = {}  # pile id -> the last frame an arm covered its top
        self._looked: dict = {}  # pile id -> the frame it was last looked at
        self._moved = -1  # the last frame the camera was found moved: every pile may read otherwise now

    def note(self, index: int, seats: np.ndarray, motion: np.ndarray, piles: Iterable[TrackedPile],
             region_of: RegionOf, moved_share: float) -> None:
        """Frame `index`'s seat map (`seats`: each low-res pixel's arm's seat, -1 none) and where it
        moved (`motion`): the piles over whose top an arm lies, or whose top's place moved by at least
        `moved_share` (a hand the seat map lost: in dim, flickering light a hand over the centre may
        part from its arm; a shaking camera moves a few pixels along the cards' edges)."""
        for pile in piles:
            if pile.top is None:
                continue
            (x, y, w, h), mask = region_of(pile.top.pose)
            if (seats[y:y + h, x:x + w][mask] >= 0).any() or \
                    (motion[y:y + h, x:x + w][mask] > 0).mean() >= max(moved_share, 1e-9):
                self._came[pile.id] = index

    def due(self, pile_id) -> bool:
        """Has an arm come over this pile, or the camera moved, since the pile was last looked at?"""
        return max(self._came.get(pile_id, -1), self._moved) > self._looked.get(pile_id, -1)

    def camera_moved(self, index: int) -> None:
        """The camera was recalibrated at frame `index`: a card read wrongly through the old mapping
        (its cut-out off the card) may read right now, so every pile is looked at once more."""
        self._moved = index

    def looked(self, pile_id, index: int, seen: bool = True, again_frames: int = 0) -> None:
        """The pile was looked at in frame `index`. A look that has not `seen` it (its top read
        unsurely: a hand's shadow, a card half slid on) leaves it due until `again_frames` after an
        arm last came over it, so the next still moment looks again; a top that never reads surely
        (glare, a smeared picture) is not looked at every turn for ever."""
        if seen or index - max(self._came.get(pile_id, -1), self._moved) > again_frames:
            self._looked[pile_id] = index
