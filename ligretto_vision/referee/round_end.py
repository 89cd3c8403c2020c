"""The round's end: a player's Ligretto stack seen gone from their zone. Its last card lands in
the centre (then that play ends the round) or in the row (then the stack's going does).

A stack's place is learnt from the table; a stack card the colour of the cloth may leave it on
the row card beside it. A row card played leaves its place empty too, but only until the stack's
next card fills it: so the place is looked at again a moment later (`stack_confirm_s`), and only
a place still empty ends the round. Nobody plays on after the stop: cards still laid in the centre
after the last card's time (`went_on_plays`) show the place was not the stack's."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace


@dataclass(frozen=True)
class StackGone:
    player: str
    when: int  # the frame the stack went (its last card taken)
    ended_by: int | None  # the rest frame of the player's play that ends the round, if it was seen already
    decide_by: int  # else: no centre card of theirs by this frame, and the last card went into the row
    confirm_by: int  # the place is looked at again from this frame: still empty, the round has ended
    later: int = 0  # cards laid in the centre (by anyone) after decide_by: the round went on

    @property
    def frame(self) -> int:
        """The round's end: the last card laid in the centre, or else the stack's going."""
        return self.ended_by if self.ended_by is not None else self.when


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
    return StackGone(player, when, ended_by, index + int(cfg.last_card_s * fps), index + int(cfg.stack_confirm_s * fps))


class RoundEnd:
    """Watching for the round's end: the players' last legal plays, and a stack seen gone that
    waits to be looked at again (and, if its last card has not been seen laid, for that card)."""

    def __init__(self, fps: float, cfg: RefereeConfig = RefereeConfig()):
        self.fps, self.cfg = fps, cfg
        self.gone: StackGone | None = None  # seen gone, not yet looked at again
        self.last_play: dict[str, int] = {}  # player -> rest frame of their last legal play

    def played(self, player: str, rest: int) -> None:
        """A card laid in the centre that stays there (a legal play, or one not judged: read unsurely,
        or laid face down) resting at frame `rest`: the last card of a stack seen gone, if it is theirs,
        none was laid since and it came in the last card's time; any card after that time is one
        more sign the round went on."""
        self.last_play[player] = rest
        g = self.gone
        if g is None:
            return
        if rest > g.decide_by:
            self.gone = replace(g, later=g.later + 1)
        elif g.player == player and g.ended_by is None:
            self.gone = replace(g, ended_by=rest)

    def stack_seen_gone(self, player: str, index: int, arms: list[ArmTrace], history_start: int) -> StackGone:
        self.gone = stack_gone(player, index, arms, history_start, self.last_play.get(player), self.fps, self.cfg)
        return self.gone

    def went_on(self) -> StackGone | None:
        """The stack seen gone, if enough cards were laid after its last card's time that the round
        cannot have ended with it."""
        g = self.gone
        return g if g is not None and g.later >= self.cfg.went_on_plays else None

    def due(self, index: int | None = None) -> StackGone | None:
        """The stack seen gone whose place is to be looked at again now (`index` None: the feed has
        ended); None if there is none (yet)."""
        g = self.gone
        if g is None or (index is not None and (index < g.confirm_by or (g.ended_by is None and index < g.decide_by))):
            return None
        return g

    def settle(self) -> None:
        """The place was looked at again: the round ended, or the stack (a row card) is back."""
        self.gone = None
