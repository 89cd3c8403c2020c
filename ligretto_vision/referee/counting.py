"""End-of-round counting: centre cards by their backs, Ligretto stacks by their faces.

Backs are counted as they are laid: during the count the players spread the centre
cards face down one by one, so each settled change in the centre holds one or two new
backs on top of the spread, each told by the enrolled backs (a back that matches no
player is counted as unknown, never guessed). Stacks are counted where they lie: the
remaining stack cards are spread face up in the player's zone as a fan, each card's
numeral corner showing; the numerals are counted along the fan.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.detect.cards import guess_from_mask, refine
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import Seat, TableLayout
from ligretto_vision.recognise.patches import Pose, card_patch, numeral_corners
from ligretto_vision.recognise.reader import CardReader

FAN_STEP_MIN_MM = 18.0  # two cards' numerals in one fan are never closer than this
MAX_NEW_PER_CHANGE = 4
SPREAD_STEP_MM = 22.0  # two cards of a spread lie at least this far apart (each must show)


@dataclass
class BackTally:
    counts: Counter = field(default_factory=Counter)  # player (or "unknown") -> backs laid in the centre
    poses: list[Pose] = field(default_factory=list)  # where each counted back lies

    def add_change(self, image, cal: Calibration, view, origin, changed: np.ndarray, card_mm,
                   reader: CardReader) -> list[str | None]:
        """Count the new backs in one settled change of the spread; returns their owners.

        A card just laid lies on top, whole: around the change, the whole card outline that
        is not one counted already (cards of a spread lie a few centimetres apart) is new."""
        rest = changed.copy()
        owners: list[str | None] = []
        area = card_mm[0] * card_mm[1]
        for _ in range(MAX_NEW_PER_CHANGE):
            ys, xs = np.nonzero(rest)
            if len(xs) < 0.12 * area:
                break
            guess = guess_from_mask(rest, origin, card_mm) or Pose(xs.mean() + origin[0], ys.mean() + origin[1], 0.0)
            found = max((refine(view, origin, Pose(guess.x, guess.y, guess.angle + t), card_mm, search_mm=20,
                                search_deg=30) for t in (0.0, 60.0, 120.0)), key=lambda f: f.contrast)
            poly = (found.pose.corners((card_mm[0] + 8, card_mm[1] + 8)) - origin).astype(np.int32)
            taken = np.zeros(rest.shape, np.uint8)
            cv2.fillConvexPoly(taken, poly, 1)
            if not (taken.astype(bool) & rest).any():
                break
            rest &= ~taken.astype(bool)
            if any(np.hypot(found.pose.x - p.x, found.pose.y - p.y) < SPREAD_STEP_MM for p in self.poses):
                continue  # a card counted already
            patch = card_patch(image, cal.to_px, found.pose, card_mm)
            if reader.read([patch])[0].face_up:
                continue  # a face-up card here is not part of the centre count
            owner, _ = reader.owner_of_back(patch)
            self.counts[owner or "unknown"] += 1
            self.poses.append(found.pose)
            owners.append(owner)
        return owners


def count_fan(image, cal: Calibration, layout: TableLayout, seat: Seat, reader: CardReader,
              off_cloth: np.ndarray, card_mm) -> list[int]:
    """The numbers showing along a player's fan of face-up stack cards (one per card)."""
    zone_mask = np.zeros(off_cloth.shape, np.uint8)
    ys, xs = np.nonzero(off_cloth)
    if len(xs) == 0:
        return []
    inzone = layout.in_zone(seat, xs.astype(float), ys.astype(float))
    if inzone.sum() < 0.3 * card_mm[0] * card_mm[1]:
        return []
    zone_mask[ys[inzone], xs[inzone]] = 1
    n, lab, stats, _ = cv2.connectedComponentsWithStats(zone_mask, connectivity=8)
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[k, cv2.CC_STAT_AREA] < 0.5 * card_mm[0] * card_mm[1]:
        return []
    by, bx = np.nonzero(lab == k)
    nx, ny = seat.normal
    rx, ry = -ny, nx  # the player's right-hand direction
    lat = bx * rx + by * ry
    dep = (bx - seat.edge_point[0]) * nx + (by - seat.edge_point[1]) * ny
    d = float(np.median(dep))
    w = card_mm[0]
    us = np.arange(lat.min(), max(lat.min() + 1, lat.max() - w + 2), 1.0)
    cx0, cy0 = seat.edge_point[0] + d * nx, seat.edge_point[1] + d * ny
    base = cx0 * rx + cy0 * ry
    angle = float(np.degrees(np.arctan2(nx, -ny)))  # upright for whoever sits at this edge
    poses = [Pose(cx0 + (u + w / 2 - base) * rx, cy0 + (u + w / 2 - base) * ry, angle) for u in us]
    crops = np.stack([numeral_corners(card_patch(image, cal.to_px, p, card_mm))[0] for p in poses])
    prob = reader.model.corner_probabilities(crops)
    face = 1 - prob[:, 0]
    peaks = [i for i in range(len(face)) if face[i] >= 0.6 and face[i] >= face[max(0, i - 2):i + 3].max()]
    # a window a little right of a card's edge still sees part of its numeral (the right half of
    # an 8 reads as a 3): of numerals closer than a fan's step, the left-most is the card's own
    numbers, last = [], -1e9
    for i in peaks:
        if us[i] - last >= FAN_STEP_MIN_MM:
            numbers.append(int(prob[i, 1:].argmax()) + 1)
            last = us[i]
    return numbers
