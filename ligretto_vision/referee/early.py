"""The early look: a card laid on a pile that an arm still touches (one passing by to another pile,
or lying over part of it) does not settle until that arm goes. Once it has lain still a moment it
is read there and then, and decided when it reads surely and only its own player's arm came to
this pile (a dispute waits for every arm to go).

`EarlyLooks` remembers when each pile was last looked at; the decisions are pure functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import Reading
from ligretto_vision.referee.moves import same_place
from ligretto_vision.track.piles import TrackedPile


@dataclass(frozen=True)
class Look:
    """When a pile's top was last looked at early, how much of it showed, how many looks so far."""
    frame: int = -10**6
    shown: int = 0
    looks: int = 0


def due(index: int, last: Look, fps: float, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Is it time to look at a pile again (not looked at just now)?"""
    return not index - last.frame < cfg.early_every_s * fps


def worth_a_look(shown: int, last: Look, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """A few looks while the arm stays, and after that only when much more of the card shows."""
    return last.looks < cfg.early_looks or shown >= cfg.early_more * last.shown


def twin_taken_back(reading: Reading, pose: Pose, pile: TrackedPile, hands: set[str],
                    cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Was a dispute's loser taken back? It lay, called, on the winner's card, the same card: taking
    it back changes only where it stuck out, and the same card shows, surely, at another place.
    Only its player takes it back: their hand (`hands`: the players whose arms made the change)
    must have been there (the two outlines of one card read by turns are no takeback)."""
    top, below = pile.top, pile.below
    return below is not None and not top.legal and top.owner in hands and top.card == below.card == reading.card \
        and reading.confidence >= cfg.early_sure and not same_place(pose, top.pose, cfg)


def guesses_on_top(change: Pose | None, top: Pose) -> list[Pose]:
    """Where to look for a card laid on a pile whose top lies at `top`: the change's own rectangle
    (`change`, if one was found), the top's place and that turned a quarter (a card from a side seat)."""
    return ([change] if change is not None else []) + [top, Pose(top.x, top.y, top.angle + 90.0)]


def turns_on_top(top: Pose) -> list[Pose]:
    """The top's place at every turn, 30 degrees apart: a card laid neatly on one of its colour changes
    little more than where their prints differ, so the change says little of its turn, and the old
    top's corner numerals still read beside it."""
    return [Pose(top.x, top.y, top.angle + d) for d in range(0, 180, 30)]


def one_arm_came(arms: list[ArmTrace], cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Did exactly one player's arm come to this pile (the others, if any, reaching well beyond it, on
    to other piles)? Only then can an early look decide (`one_arm_alone`): with two, perhaps a
    dispute, which waits for every arm to go; with none, the arms only passed over the pile, and
    a card one of them laid there is seen once they go (on the tuning range, 1 play of 439 such
    looks; in sample s01 they were two thirds of the looks and a quarter of the referee's time)."""
    return len(came(arms, cfg)) == 1


def one_arm_alone(deliverers: list[ArmTrace], arms: list[ArmTrace], cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Only one arm laid it and no other came to this pile, if only a little (else perhaps a dispute)."""
    return len(deliverers) == 1 and came(arms, cfg) <= {deliverers[0].seat}


def came(arms: list[ArmTrace], cfg: RefereeConfig = RefereeConfig()) -> set[int]:
    """The seats whose arms came to this pile: did not reach well beyond it (`pass_over_mm`)."""
    return {a.seat for a in arms if a.overshoot < cfg.pass_over_mm}


class EarlyLooks:
    def __init__(self, fps: float, cfg: RefereeConfig = RefereeConfig()):
        self.fps, self.cfg = fps, cfg
        self.looked: dict[str, Look] = {}  # pile id -> its last look

    def forget(self, pile_id: str | None = None) -> None:
        """No arm on the table (every change settles the usual way), or none over this pile."""
        if pile_id is None:
            self.looked.clear()
        else:
            self.looked.pop(pile_id, None)

    def last(self, pile_id: str) -> Look:
        """When the pile was last looked at (a pile never looked at: long ago)."""
        return self.looked.get(pile_id, Look())

    def choose(self, index: int, piles: dict[str, TrackedPile], closed: Callable[[str], bool],
               still_top: Callable[[TrackedPile], tuple[tuple, np.ndarray] | None]):
        """The pile to look at now, if any: one look a frame at most (each costs a card search), the
        pile whose still part under an arm shows most first. `closed(id)`: the rules closed it;
        `still_top(pile)`: its top's part that has lain still a moment (the monitor's window and mask),
        or None. Returns (pile, window, mask) or None."""
        candidates = []
        for pid, pile in piles.items():
            last = self.last(pid)
            if not due(index, last, self.fps, self.cfg) or closed(pid):
                continue  # looked at just now, or closed
            top = still_top(pile)
            if top is None:
                self.forget(pid)
            elif worth_a_look(n := int(top[1].sum()), last, self.cfg):
                candidates.append((n, pid, pile, *top))
        if not candidates:
            return None
        n, pid, pile, box, still = max(candidates, key=lambda c: c[0])
        self.looked[pid] = Look(index, n, self.last(pid).looks + 1)
        return pile, box, still
