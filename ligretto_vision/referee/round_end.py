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


class RoundEnd:
    """Watching for the round's end: the players' last legal plays, and a stack seen gone whose
    last card has not been seen laid yet."""

    def __init__(self, fps: float, cfg: RefereeConfig = RefereeConfig()):
        self.fps, self.cfg = fps, cfg
        self.gone: StackGone | None = None  # waiting to see where the stack's last card went
        self.last_play: dict[str, int] = {}  # player -> rest frame of their last legal play

    def played(self, player: str, rest: int) -> bool:
        """A legal play resting at frame `rest`: does it end the round (the last card of a stack
        seen gone, laid in the centre)?"""
        self.last_play[player] = rest
        if self.gone is not None and self.gone.player == player:
            self.gone = None
            return True
        return False

    def stack_seen_gone(self, player: str, index: int, arms: list[ArmTrace], history_start: int) -> StackGone:
        gone = stack_gone(player, index, arms, history_start, self.last_play.get(player), self.fps, self.cfg)
        if gone.ended_by is None:
            self.gone = gone
        return gone

    def went_to_row(self, index: int | None = None) -> StackGone | None:
        """The stack seen gone whose last card went into the row (no centre card followed by now;
        `index` None: the feed has ended), forgotten once told; None if there is none (yet)."""
        if self.gone is None or (index is not None and index < self.gone.decide_by):
            return None
        gone, self.gone = self.gone, None
        return gone
