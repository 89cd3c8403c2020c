"""Reading a player's face-up fan of stack cards at the count: the numerals along it."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import Seat, TableLayout
from ligretto_vision.recognise.patches import Pose, card_patch, numeral_corners
from ligretto_vision.recognise.reader import CardReader


def count_fan(image, cal: Calibration, layout: TableLayout, seat: Seat, reader: CardReader,
              off_cloth: np.ndarray, card_mm, cfg: RecogniseConfig = RecogniseConfig()) -> list[int]:
    """The numbers showing along a player's fan of face-up stack cards (one per card)."""
    zone_mask = np.zeros(off_cloth.shape, np.uint8)
    ys, xs = np.nonzero(off_cloth)
    if len(xs) == 0:
        return []
    inzone = layout.in_zone(seat, xs.astype(float), ys.astype(float))
    if inzone.sum() < cfg.fan_least_share * card_mm[0] * card_mm[1]:
        return []
    zone_mask[ys[inzone], xs[inzone]] = 1
    n, lab, stats, _ = cv2.connectedComponentsWithStats(zone_mask, connectivity=8)
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[k, cv2.CC_STAT_AREA] < cfg.fan_blob_share * card_mm[0] * card_mm[1]:
        return []
    by, bx = np.nonzero(lab == k)
    nx, ny = seat.across_line(bx.astype(float), by.astype(float), 2 * card_mm[0])  # across the fan, into the table
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
    peaks = [i for i in range(len(face)) if face[i] >= cfg.fan_face and face[i] >= face[max(0, i - 2):i + 3].max()]
    # a window a little right of a card's edge still sees part of its numeral (the right half of
    # an 8 reads as a 3): of numerals closer than a fan's step, the left-most is the card's own
    numbers, last = [], -1e9
    for i in peaks:
        if us[i] - last >= cfg.fan_step_min_mm:
            numbers.append(int(prob[i, 1:].argmax()) + 1)
            last = us[i]
    return numbers
