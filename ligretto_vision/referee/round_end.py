"""The round's end: a player's Ligretto stack seen gone from their zone. Its last card lands in
the centre (then that play ends the round) or in the row (then the stack's going does)."""
from __future__ import annotations

from dataclasses import dataclass

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace


@dataclass(frozen=True)
class StackGone:
    player: str
    when: int  # the frame the stack went (its last card taken)
    ended_by: int | None  # the rest frame of the player's play that ends the round now, if it was seen already
    decide_by: int  # else: no centre card of theirs by this frame, and the last card went into the row


def stack_gone(player: str, index: int, arms: list[ArmTrace], history_start: int, last_play: int | None,
               fps: float, cfg: RefereeConfig = RefereeConfig()) -> StackGone:
    """`player`'s stack was seen gone at frame `index` after a change the `arms` made (the history
    of arms began at `history_start`); `last_play`: the rest frame of their last legal play."""
    arm = max(arms, key=lambda a: a.last) if arms else None
    when = (arm.last if arm else index) - int(round(cfg.rest_after_s * fps))
    ended_by = None
    if last_play is not None and index - last_play <= cfg.last_card_s * fps \
            and (arm is None or last_play >= arm.first or arm.first == history_start):
        # the arm that took the last card has already laid it in the centre (a card laid before
        # that arm reached the stack was another one: the last went to the row; an arm there
        # since before the history began cannot tell)
        ended_by = last_play
    return StackGone(player, when, ended_by, index + int(cfg.last_card_s * fps))
