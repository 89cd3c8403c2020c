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
from ligretto_vision.geometry.zones import LinePlace, Seat, TableLayout
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

    line: LinePlace | None = None  # where the line lay when watching began (learnt)


class ZoneTracker:
    def __init__(self, layout: TableLayout, card_mm, cfg: RefereeConfig = RefereeConfig(),
                 detect: DetectConfig = DetectConfig()):
        self.layout, self.card_mm, self.cfg, self.detect = layout, card_mm, cfg, detect
        self.zones = {s.player: PlayerZone(s.player, s) for s in layout.seats}

    def learn(self, off_cloth: np.ndarray, players: set[str] | None = None) -> None:
        """Each player's stack place, from the table as it lies when watching starts: the cards
        of a zone lie in a line along the player's edge, and the stack is its right-hand end.
        `off_cloth`: 1 px/mm mask of the whole table where it is not the cloth. `players`: learn
        only these zones again (an arm that lay over them when watching began has gone)."""
        # what is thinner than a card's strip is no card of the line (a brick cloth's mortar, a
        # speck): left in, the walk along the line crosses the cloth to the table's far side
        k = self.cfg.line_thin_mm
        line = cv2.morphologyEx(off_cloth.astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        ys, xs = np.nonzero(line)
        xs, ys = xs[::7].astype(float), ys[::7].astype(float)
        w, h = self.card_mm
        for z in self.zones.values():
            if players is not None and z.player not in players:
                continue
            sel = self.layout.in_zone(z.seat, xs, ys)
            if sel.sum() < self.cfg.zone_least_share * w * h / 7:  # one point in 7 was taken
                continue
            nx, ny = z.seat.across_line(xs[sel], ys[sel], 2 * w)  # whichever way the line lies
            depth = (xs[sel] - z.seat.edge_point[0]) * nx + (ys[sel] - z.seat.edge_point[1]) * ny
            d = float(np.median(depth))
            # the line's own band: a marker or a pile further in or out is not its end (the band
            # holds the median point, so never nothing)
            band = np.abs(depth - d) <= h / 2 + self.cfg.line_band_mm
            axis = LinePlace((z.seat.edge_point[0] + d * nx, z.seat.edge_point[1] + d * ny), (nx, ny), (0.0, 0.0))
            right, _ = axis.local(xs[sel][band], ys[sel][band])  # to the player's right along the line
            lo, hi = np.percentile(right, (1, 99))
            z.line = LinePlace(axis.at((lo + hi) / 2, 0.0), (nx, ny), (float(lo - hi) / 2, float(hi - lo) / 2))
            # the stack lies as the line's cards do, its long side across the line (a seat at an
            # angle may still lay its line along the edge)
            turn = float(np.degrees(np.arctan2(-nx, ny)))
            z.stack = None
            for end, points, apart in _line_ends(right, self.cfg.row_gap_mm):  # the right-hand end first
                if points < self.cfg.stack_least_run * w * h / 7 and apart > w / 3:
                    continue  # less than a card, apart from the line (what is left of a marker, a pile's corner)
                pose = Pose(*axis.at(end - w / 2, 0.0), turn)
                # a place mostly bare is no stack (the line was misread): not watched, never seen "gone"
                z.stack = Spot(pose) if cover(off_cloth, (0, 0), pose, self.card_mm) >= self.cfg.stack_seen else None
                break

    def _area_on_table(self, pose: Pose) -> float:
        """How much of a card at `pose` lies on the table, in pixels of a 1 px/mm top view as
        `check_stacks` counts the part in its view (a stack at the edge may stick out)."""
        poly = pose.corners(self.card_mm).astype(np.int32)
        x0, y0 = poly.min(0)
        m = np.zeros(tuple(poly.max(0)[::-1] - (y0, x0) + 1), np.uint8)
        cv2.fillConvexPoly(m, poly - (x0, y0), 1)
        # only the pixels on the table count: those at 0 <= x < w, 0 <= y < h
        return float(m[max(0, -y0):max(0, int(self.layout.h) - y0), max(0, -x0):max(0, int(self.layout.w) - x0)].sum())

    def stacks_of(self, players: set[str]) -> list[Pose]:
        """The places of these players' stacks still watched."""
        return [z.stack.pose for z in self.zones.values()
                if z.player in players and z.stack is not None and z.stack.occupied]

    def place_of(self, player: str) -> Pose | None:
        """Where this player's stack was learnt to lie (watched or seen gone), None if nowhere."""
        z = self.zones[player]
        return z.stack.pose if z.stack is not None else None

    def line_of(self, player: str) -> LinePlace:
        """Where this player's line lay when watching began (where their zone says, if not seen)."""
        z = self.zones[player]
        return z.line if z.line is not None else self.layout.default_line(z.seat)

    def forget(self, player: str) -> None:
        """The place seen empty was filled again: a row card's place, not the stack's. Not watched
        any more (a wrong place would end the round whenever its card is played)."""
        self.zones[player].stack = None

    def check_stacks(self, top_view: np.ndarray, origin, region_mask: np.ndarray, cloth_bgr,
                     light: float = 1.0, busy: float = 0.0, players: set[str] | None = None) -> list[str]:
        """After a change in a zone: players (of `players`, or any) whose stack place (inside the
        changed region) is now empty. `light`, `busy`: how much dimmer than at the start, how busy
        the bare cloth (see `not_cloth`)."""
        emptied = []
        for z in self.zones.values():
            spot = z.stack
            if spot is None or not spot.occupied or (players is not None and z.player not in players):
                continue
            if self.empty(spot.pose, top_view, origin, region_mask, cloth_bgr, light, busy):
                spot.occupied = False
                emptied.append(z.player)
        return emptied

    def empty(self, pose: Pose, top_view: np.ndarray, origin, region_mask: np.ndarray, cloth_bgr,
              light: float = 1.0, busy: float = 0.0) -> bool | None:
        """Does the place `pose` show (almost) bare cloth in `top_view`? None: too little of it in
        view, or none of it in the changed `region_mask` (what shows at a view's edge says nothing)."""
        poly = (pose.corners(self.card_mm) - origin).astype(np.int32)
        m = np.zeros(region_mask.shape, np.uint8)
        cv2.fillConvexPoly(m, poly, 1)
        inside = m.astype(bool)
        if inside.sum() < self.cfg.stack_in_view * self._area_on_table(pose) or not (inside & region_mask).any():
            return None
        off = not_cloth(top_view, cloth=cloth_bgr, light=light, cfg=self.detect, busy=busy).astype(bool)
        return bool(off[inside].mean() < self.cfg.stack_empty)


def _line_ends(pos: np.ndarray, gap_mm: float) -> list[tuple[float, int]]:
    """Where a line of cards may end on its right: from its middle, walk right until a gap wider
    than the gaps between row cards (a pile of the centre nearby is not part of the line). Each
    run of points on the way ends at one, as (end, points in the run, gap before the run), the
    furthest first."""
    if not len(pos):
        return []
    lo = float(pos.min())
    bins = np.bincount(((pos - lo) / 2).astype(int))
    i = int((np.median(pos) - lo) / 2)
    runs, empty = [], 0  # [first bin, last bin] of each run
    while i < len(bins):
        if bins[i] > 0:
            if empty or not runs:
                runs.append([i, i])
            runs[-1][1], empty = i, 0
        else:
            empty += 1
            if empty * 2 > gap_mm:
                break
        i += 1
    gaps = [0.0] + [2.0 * (a - runs[k][1] - 1) for k, (a, _) in enumerate(runs[1:])]
    return [(lo + b * 2 + 1, int(bins[a:b + 1].sum()), gap) for (a, b), gap in reversed(list(zip(runs, gaps)))]
