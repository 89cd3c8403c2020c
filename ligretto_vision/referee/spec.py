"""What the referee is told about the table, and what it records about each decision."""
from __future__ import annotations

from dataclasses import dataclass, field

from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import Reading
from ligretto_vision.rules import RuleOptions


@dataclass
class TableSpec:
    """What the referee must know about the table (from scene.json or the set-up pages)."""
    players: list[str]
    colours: list[str]
    card_mm: tuple[float, float]
    options: RuleOptions
    fps: float
    markers: list[tuple[float, float, float]] = field(default_factory=list)  # (x, y, radius) mm: not cards


@dataclass
class Decision:
    """Why the referee decided what it did, for overlays and review."""
    frame: int
    kind: str
    pose: Pose | None = None
    reading: Reading | None = None
    player: str | None = None
    note: str = ""
