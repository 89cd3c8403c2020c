"""What the referee shows the rest of the program each frame: a read-only copy of the piles and its
latest decisions. The overlay and the panel draw from this and never reach into the referee."""
from __future__ import annotations

from dataclasses import dataclass

from ligretto_vision.recognise.patches import Pose


@dataclass(frozen=True)
class PileView:
    id: int | str
    card: str | None  # the top card as read
    legal: bool  # whether that top card was laid legally
    pose: Pose  # where the top card lies (table mm)


@dataclass(frozen=True)
class DecisionView:
    frame: int
    kind: str  # "play", "unchanged", "unreadable", "early-look", "count-begins", ...
    pose: Pose | None
    player: str | None = None
    note: str = ""


@dataclass(frozen=True)
class TableView:
    frame: int
    piles: tuple[PileView, ...] = ()
    decisions: tuple[DecisionView, ...] = ()  # the latest few, oldest first
