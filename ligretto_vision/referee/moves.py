"""What a settled change at a pile means, given the card now read on top there: a `Move`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import Reading
from ligretto_vision.track.piles import TrackedPile

MoveKind = Literal["play", "takeback", "unchanged", "unreadable", "count-begins", "pile-gone"]


@dataclass(frozen=True)
class Move:
    kind: MoveKind
    reading: Reading  # the top card as it counts (a face-down 10 closing a pile reads as that 10)
    note: str = ""
    sure: bool = True  # a play read too unsurely to judge (`judge_least`): written unsure, not judged


def same_place(a: Pose, b: Pose, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """A card this close to another (and turned alike) is that same card."""
    return float(np.hypot(a.x - b.x, a.y - b.y)) < cfg.same_place_mm and a.turn_to(b) < cfg.same_turn_deg


def laid_across(reading: Reading, pile: TrackedPile, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Where a pile's top still reads where it lay, is the card read in the change's own rectangle
    one laid across it? Read surely, not a card the pile holds, and not one of the top's colour
    numbered below it: a pile's run goes up, so such a card lies under the top (a messy pile's lower
    card peeking out where a card was taken back), not on it."""
    top = pile.top.card.rsplit("-", 1)
    beneath = reading.colour == top[0] and reading.number is not None and top[1].isdigit() and reading.number < int(top[1])
    return new_card_read(reading, pile, cfg) and not beneath


def new_card_read(reading: Reading, pile: TrackedPile, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Did the look read, surely, a card new to this pile? (A card taken back is the usual way's.)"""
    return reading.face_up and reading.card is not None and reading.confidence >= cfg.early_sure \
        and reading.card not in {c.card for c in pile.cards}


def looked_surely(reading: Reading, pile: TrackedPile, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Did a look read the pile's top as it lies, surely? Only such a look has seen the pile: one
    that read something else, or read it unsurely, leaves the pile to be looked at again."""
    return pile.top is not None and reading.face_up and reading.card == pile.top.card \
        and reading.confidence >= cfg.early_sure


def turned_card_taken(reading: Reading, pile: TrackedPile, fits: Callable[[str], bool],
                      cfg: RefereeConfig = RefereeConfig()) -> bool:
    """A card found only when the old top's place was read at every turn: taken when it is new to the
    pile, read at least `turned_sure` and `fits` the pile as the rules know it (a card that does not
    follow may be a rectangle cut across a messy pile read as some card: only the usual looks judge it)."""
    return new_card_read(reading, pile, cfg) and reading.confidence >= cfg.turned_sure and fits(reading.card)


def meaning(pile: TrackedPile | None, reading: Reading, pose: Pose, hands: set[str],
            top_changed: Callable[[Pose], float], stopped: Callable[[], bool], ten_face_down: bool,
            cfg: RefereeConfig = RefereeConfig()) -> Move:
    """What the change means. `pile`: the pile it happened at (None: none there before); `reading`
    and `pose`: the card now on top; `hands`: the players whose arms covered the place well;
    `top_changed(pose)`: the share of a card at `pose` that changed; `stopped()`: is the round
    over; `ten_face_down`: a 10 turned face down closes its pile (a table option)."""
    if pile is not None and pile.below is not None and reading.card == pile.below.card \
            and (same_place(pose, pile.below.pose, cfg) or not pile.below.seen):
        return Move("takeback", reading)  # the card below shows again where it lay
    if pile is not None and reading.card == pile.top.card and (
            same_place(pose, pile.top.pose, cfg) or hands <= {pile.top.owner}
            or (pile.top.under_arm and pose.turn_to(pile.top.pose) < cfg.copy_turn_deg)):
        # the same card, where it was (or only its own player's hand came by, or it was read
        # while an arm lay over part of it and now shows whole, not turned far from its first
        # guess: then another hand laid a copy of it on it): nothing was laid
        return Move("unchanged", reading, "the top card is where it was")
    gone = (pile is not None and reading.card is None and not reading.face_up and reading.confidence <= 0
            and top_changed(pile.top.pose) > cfg.gone_share)  # bare cloth, or a back of nobody's
    if gone and stopped():
        return Move("count-begins", reading, "piles are being collected")  # a whole pile picked up after the stop
    if gone and len(pile.cards) >= cfg.gathered_least:
        # nobody takes back more than one card: a pile picked up whole after a stop not seen (or a
        # card laid there read as bare cloth: a second pile gathered soon after tells)
        return Move("pile-gone", reading, "a whole pile picked up")
    if gone and len(pile.cards) == 1:
        return Move("takeback", reading)  # the pile's only card has gone
    if reading.face_up and reading.confidence < cfg.least_read:
        # a numeral this unsure is a guess (a shadow, a hand, a card in a player's dark corner)
        return Move("unreadable", reading, "read too unsurely")
    # a card, but perhaps not the one read: the rules write it unsure instead of judging it
    # (a back closing a pile is surely its 10: nothing else may lie there)
    sure = not reading.face_up or reading.confidence >= cfg.judge_least
    if not reading.face_up and reading.confidence > 0 and pile is not None and ten_face_down and (
            pile.top.card.endswith("-9") or (pile.top.card.endswith("-10") and reading.owner not in (None, pile.top.owner)
                                             and not same_place(pose, pile.top.pose, cfg))):
        # a 10 turned face down closes the pile: on a 9 it can only be that pile's 10; another player's
        # back lying apart on a pile a back closed is their copy of that 10, raced onto it (the rules
        # say whose came first; tuning table 30: a blue 10 lost so)
        reading = Reading(True, pile.top.card.rsplit("-", 1)[0], 10, confidence=reading.confidence)
    if not reading.face_up and reading.confidence > 0:
        # a player's card face down anywhere but on a 9 (where it would be that pile's 10) or
        # apart on another's closing back (a copy of that 10): reported, never guessed into a face
        return Move("unreadable", reading, f"a card of {reading.owner or 'a player'} laid face down: check it")
    if not reading.face_up or reading.card is None:
        return Move("unreadable", reading)
    return Move("play", reading) if sure else Move("play", reading, "read unsurely: written so, not judged", False)


def unsure_under_arm(pile: TrackedPile, hands: set[str]) -> bool:
    """A pile's top read while an arm lay over part of it, read again "where it was" once it shows
    whole: is it no longer known for sure? So when another player's hand (`hands`: those that held
    the place) came there meanwhile: a card of theirs may lie on it, its outline lost in the old
    card's (tuning table 16: a blue 9 laid on such a blue 8, read as the 8, made the blue 10 on it
    a wrong call)."""
    return pile.top.under_arm and bool(hands - {pile.top.owner})


def piles_gathered(index: int, kind: str, pile_gone: int | None, top_lost: int | None, fps: float,
                   cfg: RefereeConfig = RefereeConfig()) -> bool:
    """A pile lost its top card at `index` with no call: `kind` "pile-gone" (a whole pile picked up)
    or "takeback" (of a card not called illegal). Are the centre's piles being gathered for the count,
    though the stop was not seen? So when another whole pile went within `gathered_within_s`
    (`pile_gone`: the last), or any pile lost its top so within `gathered_takebacks_s` (`top_lost`: the
    last). In play only a wrong card is taken back, one at a time; gathering, hands sweep up pile
    after pile, and a pile picked up in two goes shows the card below a moment."""
    if kind == "pile-gone" and pile_gone is not None and index - pile_gone <= cfg.gathered_within_s * fps:
        return True
    return top_lost is not None and index - top_lost <= cfg.gathered_takebacks_s * fps


def own_top_moved(player: str, card: str, pile: TrackedPile | None) -> bool:
    """Is `player`'s `card` read on `pile` their own top card moved, not one laid? Each player has
    one of each card, so a second copy on the pile is another player's (a dispute), never theirs."""
    return pile is not None and pile.top is not None and card == pile.top.card and player == pile.top.owner


def gone_from_under(out_mm2: float, since: float, before: float, cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Has a card called illegal, covered since, gone from under the cards over it? Enough of it lay
    out from under them (`out_mm2`), that part changed since the card was taken in (`since`, a share)
    and shows again what lay there before it came (`before`: the share still differing from that; a
    card laid over it changes it too, but is not what lay there)."""
    return out_mm2 >= cfg.stray_out_least_mm2 and since >= cfg.stray_gone_share and before <= cfg.stray_bare_share


def taken_back(owner: str | None, arms: list[ArmTrace], settled: int, layout: TableLayout, fps: float,
               cfg: RefereeConfig = RefereeConfig()) -> tuple[int, str | None]:
    """When a card was taken back and by whom: it left its place `taken_after_s` before the last arm
    left the region (or the change settled, at frame `settled`, with no arm); the card's owner, or
    failing that (a pile's card laid before we watched) that arm's player."""
    arm = max(arms, key=lambda a: a.last) if arms else None
    frame = (arm.last if arm else settled) - int(round(cfg.taken_after_s * fps))
    return frame, owner if owner is not None or arm is None else layout.seats[arm.seat].player
