"""The board game's events, one dataclass per type of BOARD-SCENES.md's log ("Events").

Each turns into the project's generic `events.Event` (`to_event`), so the event log writer of
the card game writes them unchanged: cells as `[col, row]` lists, the card as "red+blue".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ligretto_vision.events import Event
from ligretto_vision.rules.board.board import Cell


def _cell(c: Cell) -> list[int]:
    return [c[0], c[1]]


@dataclass(frozen=True)
class PlaceEvent:
    """A card came to rest on the board; `reason` one of reasons.BoardReason when not legal."""
    type: ClassVar[str] = "place"
    frame: int
    player: str
    card: str
    cells: tuple[Cell, Cell]
    legal: bool
    reason: str | None = None

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {"player": self.player, "card": self.card,
                                             "cells": [_cell(c) for c in self.cells],
                                             "legal": self.legal, "reason": self.reason})


@dataclass(frozen=True)
class JokerEvent:
    """A joker laid on a field. The log has no verdict for jokers; an illegal one (the rules judge
    them as cards, legality.judge_joker) adds `legal` false and its `reason`."""
    type: ClassVar[str] = "joker"
    frame: int
    player: str
    cell: Cell
    legal: bool = True
    reason: str | None = None

    def to_event(self) -> Event:
        data = {"player": self.player, "cell": _cell(self.cell)}
        return Event(self.type, self.frame, data if self.legal else {**data, "legal": False, "reason": self.reason})


@dataclass(frozen=True)
class TokenEvent:
    """A token now stands on that field (set-up, a play, a cul-de-sac)."""
    type: ClassVar[str] = "token"
    frame: int
    token: str
    cell: Cell

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {"token": self.token, "cell": _cell(self.cell)})


@dataclass(frozen=True)
class TakebackEvent:
    """A card (two cells) or a joker (one) lifted off the board again."""
    type: ClassVar[str] = "takeback"
    frame: int
    player: str
    cells: tuple[Cell, ...]

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {"player": self.player, "cells": [_cell(c) for c in self.cells]})


@dataclass(frozen=True)
class RoundEndEvent:
    """The player has laid their last card: "Ligretto stop"."""
    type: ClassVar[str] = "round_end"
    frame: int
    player: str

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {"player": self.player})


@dataclass(frozen=True)
class RoundBlockedEvent:
    """Nobody can play any more: the round ends, scored as it stands (RULES.md §2). Not in
    BOARD-SCENES.md's table: the card game's own `round_blocked` (events.py), for the same end."""
    type: ClassVar[str] = "round_blocked"
    frame: int

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {})


@dataclass(frozen=True)
class RankEvent:
    """A player's result for the round (ranking.Rank at a frame)."""
    type: ClassVar[str] = "rank"
    frame: int
    player: str
    place: int
    cards_left: int
    jokers_left: int
    chips: int
    aside: int

    def to_event(self) -> Event:
        return Event(self.type, self.frame, {"player": self.player, "place": self.place,
                                             "cards_left": self.cards_left, "jokers_left": self.jokers_left,
                                             "chips": self.chips, "aside": self.aside})


BoardEvent = PlaceEvent | JokerEvent | TokenEvent | TakebackEvent | RoundEndEvent | RoundBlockedEvent | RankEvent
