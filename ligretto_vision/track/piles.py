"""The centre piles as the camera has seen them: where each lies and which cards it holds.

Ids come from the rules' round (`Round.new_pile_id`), so the tracker and the rules
name a pile the same way for its whole life; an id is never given to another pile.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ligretto_vision.recognise.patches import Pose


@dataclass
class TrackedCard:
    card: str  # "red-3"
    pose: Pose
    owner: str | None
    legal: bool = True
    seen: bool = True  # False: it lies under another card laid at the same time, its exact place unseen
    under_arm: bool = False  # decided while an arm still lay over part of it: its place is a first guess
    # the table where it lies once it was taken in (1 px/mm): the place changing later, with no card
    # seen laid there, says a card was missed
    look: np.ndarray | None = field(default=None, repr=False, compare=False)
    # a card called illegal: the table where it lies as it was before it came, to tell it taken back
    # (what lay there shows again) from covered by another card
    before: np.ndarray | None = field(default=None, repr=False, compare=False)


@dataclass
class TrackedPile:
    id: int | str
    cards: list[TrackedCard] = field(default_factory=list)  # in the order they lie, top last

    @property
    def top(self) -> TrackedCard | None:
        return self.cards[-1] if self.cards else None

    @property
    def below(self) -> TrackedCard | None:
        return self.cards[-2] if len(self.cards) > 1 else None


class PileTracker:
    def __init__(self, near_mm: float):
        self.near = near_mm  # a change this near a pile's top (or the card below it) is at that pile
        self.piles: dict[str, TrackedPile] = {}

    def near_pile(self, x: float, y: float) -> TrackedPile | None:
        """The pile whose top card (or the card below it) lies nearest to (x, y), within reach."""
        best, best_d = None, self.near
        for pile in self.piles.values():
            for c in pile.cards[-2:]:
                d = float(np.hypot(c.pose.x - x, c.pose.y - y))
                if d < best_d:
                    best, best_d = pile, d
        return best

    def add(self, pile_id, card: TrackedCard) -> TrackedPile:
        pile = self.piles.setdefault(str(pile_id), TrackedPile(pile_id))
        pile.cards.append(card)
        return pile

    def remove_pile(self, pile: TrackedPile) -> None:
        """The whole pile picked up."""
        pile.cards.clear()
        self.piles.pop(str(pile.id), None)

    def remove_top(self, pile: TrackedPile) -> TrackedCard:
        card = pile.cards.pop()
        if not pile.cards:
            del self.piles[str(pile.id)]
        return card
