"""The board game's events, one dataclass per type of BOARD-SCENES.md's log ("Events").

Each turns into the project's generic `events.Event` (`to_event`), so the event log writer of
the card game writes them unchanged: their fields become the keys, cells `[col, row]` lists,
the card "red+blue".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from ligretto_vision.events import Event
from ligretto_vision.rules.board.board import Cell
from ligretto_vision.rules.board.ranking import Rank


def _listed(value):
    """Cells (tuples, and tuples of them) as the JSON lists of the log."""
    return [_listed(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class _Logged:
    """An event of the board game's log: `type`, `frame` and a key per further field."""
    type: ClassVar[str]
    quiet: ClassVar[tuple[str, ...]] = ()  # keys left out of the log while they hold their default
    frame: int

    def to_event(self) -> Event:
        defaults = {f.name: f.default for f in fields(self)}
        data = {k: _listed(v) for k, v in asdict(self).items()
                if k != "frame" and not (k in self.quiet and v == defaults[k])}
        return Event(self.type, self.frame, data)


@dataclass(frozen=True)
class PlaceEvent(_Logged):
    """A card came to rest on the board; `reason` one of reasons.BoardReason when not legal."""
    type: ClassVar[str] = "place"
    player: str
    card: str
    cells: tuple[Cell, Cell]
    legal: bool
    reason: str | None = None


@dataclass(frozen=True)
class JokerEvent(_Logged):
    """A joker laid on a field. The log has no verdict for jokers; an illegal one (the rules judge
    them as cards, legality.judge_joker) adds `legal` false and its `reason`."""
    type: ClassVar[str] = "joker"
    quiet: ClassVar[tuple[str, ...]] = ("legal", "reason")
    player: str
    cell: Cell
    legal: bool = True
    reason: str | None = None


@dataclass(frozen=True)
class TokenEvent(_Logged):
    """A token now stands on that field (set-up, a play, a cul-de-sac)."""
    type: ClassVar[str] = "token"
    token: str
    cell: Cell


@dataclass(frozen=True)
class TakebackEvent(_Logged):
    """A card (two cells) or a joker (one) lifted off the board again."""
    type: ClassVar[str] = "takeback"
    player: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class RoundEndEvent(_Logged):
    """The player has laid their last card: "Ligretto stop"."""
    type: ClassVar[str] = "round_end"
    player: str


@dataclass(frozen=True)
class RoundBlockedEvent(_Logged):
    """Nobody can play any more: the round ends, scored as it stands (RULES.md §2). Not in
    BOARD-SCENES.md's table: the card game's own `round_blocked` (events.py), for the same end."""
    type: ClassVar[str] = "round_blocked"


@dataclass(frozen=True)
class RankEvent(Rank, _Logged):
    """A player's result for the round: a ranking.Rank at a frame."""
    type: ClassVar[str] = "rank"

    @classmethod
    def of(cls, frame: int, rank: Rank) -> "RankEvent":
        return cls(frame=frame, **asdict(rank))


BoardEvent = PlaceEvent | JokerEvent | TokenEvent | TakebackEvent | RoundEndEvent | RoundBlockedEvent | RankEvent
