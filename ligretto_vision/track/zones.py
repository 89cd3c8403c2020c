"""The players' own zones: the places where their row, Ligretto stack and discard pile lie.

The referee needs one thing from a zone while play goes on: the moment a player's
Ligretto stack is gone ("Ligretto Stop!"). Each zone's places are learned from the
table when watching starts; a player's stack is the place at their right-hand end
of the line (row in the middle, discard pile on the left, as the cards are laid
out).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.detect.outlines import cover
from ligretto_vision.geometry.zones import Seat, TableLayout
from ligretto_vision.recognise.patches import Pose


@dataclass
class Spot:
    pose: Pose
    occupied: bool = True


@dataclass
class PlayerZone:
    player: str
    seat: Seat
    stack: Spot | None = None

    across: tuple[float, float] | None = None  # across the player's line, into the table (learnt)

    def right_of(self, pose: Pose) -> float:
        """How far to the player's right a place lies, along their line (facing the centre)."""
        nx, ny = self.across or self.seat.normal
        return pose.x * -ny + pose.y * nx


class ZoneTracker:
    def __init__(self, layout: TableLayout, card_mm, cfg: RefereeConfig = RefereeConfig(),
                 detect: DetectConfig = DetectConfig()):
        self.layout, self.card_mm, self.cfg, self.detect = layout, card_mm, cfg, detect
        self.zones = {s.player: PlayerZone(s.player, s) for s in layout.seats}

    def learn(self, off_cloth: np.ndarray) -> None:
        """Each player's stack place, from the table as it lies when watching starts: the cards
        of a zone lie in a line along the player's edge, and the stack is its right-hand end.
        `off_cloth`: 1 px/mm mask of the whole table where it is not the cloth."""
        ys, xs = np.nonzero(off_cloth)
        zone = np.array([self.layout.zone_of(float(x), float(y)) or "" for x, y in zip(xs[::7], ys[::7])])
        xs, ys = xs[::7].astype(float), ys[::7].astype(float)
        w, h = self.card_mm
        for z in self.zones.values():
            sel = zone == z.player
            if sel.sum() < self.cfg.zone_least_share * w * h / 49:
                continue
            z.across = nx, ny = z.seat.across_line(xs[sel], ys[sel], 2 * w)  # whichever way the line lies
            right = z.right_of(Pose(xs[sel], ys[sel], 0.0))
            depth = (xs[sel] - z.seat.edge_point[0]) * nx + (ys[sel] - z.seat.edge_point[1]) * ny
            r = _line_end(right, self.cfg.row_gap_mm) - w / 2
            d = float(np.median(depth))
            cx = z.seat.edge_point[0] + d * nx
            cy = z.seat.edge_point[1] + d * ny
            # the point on the line through (cx, cy) along the right-hand direction with right() == r
            rx, ry = -ny, nx
            base = cx * rx + cy * ry
            # the stack lies as the line's cards do, its long side across the line (a seat at an
            # angle may still lay its line along the edge)
            turn = float(np.degrees(np.arctan2(-nx, ny)))
            pose = Pose(cx + (r - base) * rx, cy + (r - base) * ry, turn)
            # a place mostly bare is no stack (the line was misread): not watched, never seen "gone"
            z.stack = Spot(pose) if cover(off_cloth, (0, 0), pose, self.card_mm) >= self.cfg.stack_seen else None

    def check_stacks(self, top_view: np.ndarray, origin, region_mask: np.ndarray, cloth_bgr,
                     light: float = 1.0, busy: float = 0.0) -> list[str]:
        """After a change in a zone: players whose stack place (inside the changed region) is now empty.
        `light`, `busy`: how much dimmer than at the start, how busy the bare cloth (see `not_cloth`)."""
        emptied = []
        for z in self.zones.values():
            spot = z.stack
            if spot is None or not spot.occupied:
                continue
            poly = (spot.pose.corners(self.card_mm) - origin).astype(np.int32)
            m = np.zeros(region_mask.shape, np.uint8)
            cv2.fillConvexPoly(m, poly, 1)
            inside = m.astype(bool)
            if inside.sum() < self.cfg.stack_in_view * self.card_mm[0] * self.card_mm[1] or not (inside & region_mask).any():
                continue  # a change beside the place: what shows of it at the view's edge says nothing
            off = not_cloth(top_view, cloth=cloth_bgr, light=light, cfg=self.detect, busy=busy).astype(bool)
            if off[inside].mean() < self.cfg.stack_empty:
                spot.occupied = False
                emptied.append(z.player)
        return emptied


def _line_end(pos: np.ndarray, gap_mm: float) -> float:
    """The right-hand end of a line of cards: from its middle, walk right until a gap wider
    than the gaps between row cards (a pile of the centre nearby is not part of the line)."""
    lo = float(pos.min())
    bins = np.bincount(((pos - lo) / 2).astype(int))
    i = int((np.median(pos) - lo) / 2)
    end, empty = i, 0
    while i < len(bins):
        if bins[i] > 0:
            end, empty = i, 0
        else:
            empty += 1
            if empty * 2 > gap_mm:
                break
        i += 1
    return lo + end * 2 + 1
