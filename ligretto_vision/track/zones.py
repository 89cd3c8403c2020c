"""The players' own zones: the places where their row, Ligretto stack and discard pile lie.

The referee needs one thing from a zone while play goes on: the moment a player's
Ligretto stack is gone ("Ligretto Stop!"). Each zone's places are learned from the
table when watching starts; a player's stack is the place at their right-hand end
of the line (row in the middle, discard pile on the left, as the cards are laid
out), and it is confirmed by behaviour: cards only ever leave it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.geometry.zones import Seat, TableLayout
from ligretto_vision.recognise.patches import Pose


@dataclass
class Spot:
    pose: Pose
    occupied: bool = True
    emptied_at: int | None = None  # the frame it was found empty


@dataclass
class PlayerZone:
    player: str
    seat: Seat
    spots: list[Spot] = field(default_factory=list)
    stack: Spot | None = None

    def right_of(self, pose: Pose) -> float:
        """How far to the player's right a place lies (the player faces the table's centre)."""
        nx, ny = self.seat.normal
        return pose.x * -ny + pose.y * nx


class ZoneTracker:
    def __init__(self, layout: TableLayout, card_mm):
        self.layout, self.card_mm = layout, card_mm
        self.zones = {s.player: PlayerZone(s.player, s) for s in layout.seats}

    def learn(self, poses: list[Pose]) -> None:
        """The zone places as the table lies when watching starts."""
        for pose in poses:
            player = self.layout.zone_of(pose.x, pose.y)
            if player is not None:
                self.zones[player].spots.append(Spot(pose))
        for z in self.zones.values():
            if z.spots:
                z.stack = max(z.spots, key=lambda s: z.right_of(s.pose))

    def check_stacks(self, top_view: np.ndarray, origin, region_mask: np.ndarray, cloth_bgr, frame: int) -> list[str]:
        """After a change in a zone: players whose stack place (inside the changed region) is now empty."""
        emptied = []
        for z in self.zones.values():
            spot = z.stack
            if spot is None or not spot.occupied:
                continue
            poly = (spot.pose.corners(self.card_mm) - origin).astype(np.int32)
            m = np.zeros(region_mask.shape, np.uint8)
            cv2.fillConvexPoly(m, poly, 1)
            inside = m.astype(bool)
            if not inside.any() or not (inside & region_mask).any():
                continue
            off = np.abs(top_view.astype(np.int16) - cloth_bgr).sum(axis=2) > 60
            if off[inside].mean() < 0.25:
                spot.occupied, spot.emptied_at = False, frame
                emptied.append(z.player)
        return emptied
