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
              off_cloth: np.ndarray, card_mm, cfg: RecogniseConfig = RecogniseConfig()) -> list[int | None]:
    """The numbers showing along a player's fan of face-up stack cards, one per card (None: a card
    seen by its edge whose numeral was not read)."""
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
    if cfg.fan_by_edges:
        # each way undercounts what it cannot see (a numeral too small or printed only in the
        # middle; an edge between two cards of one colour): the one that saw more cards counts
        middle = (lat.min() + lat.max()) / 2
        strip = card_patch(image, cal.to_px, Pose(cx0 + (middle - base) * rx, cy0 + (middle - base) * ry, angle),
                           (float(lat.max() - lat.min()) + 2 * cfg.fan_margin_mm, card_mm[1]), cfg.fan_edge_ppm)
        n = cards_by_edges(fan_edges(strip, cfg), card_mm[0], cfg) or 0
        numbers += [None] * (n - len(numbers))
    return numbers


def fan_edges(strip: np.ndarray, cfg: RecogniseConfig = RecogniseConfig()) -> list[float]:
    """Where a fan's cards' long edges lie (mm from the strip's left), in a strip cut along it
    (`cfg.fan_edge_ppm` px/mm, the cards upright): a card's edge runs down most of its height,
    a numeral's stroke does not."""
    g = cv2.GaussianBlur(strip.astype(np.float32), (0, 0), 1.0)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)).max(axis=2)
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)).max(axis=2)
    h = strip.shape[0]
    band = slice(int(0.15 * h), int(0.85 * h))  # clear of the cards' top and bottom edges
    strong = max(cfg.fan_edge_least, float(np.percentile(gx[band], 90)) * 0.5)
    edge = (gx[band] > strong) & (gx[band] > gy[band])
    down = cv2.dilate(edge.astype(np.uint8), np.ones((1, 3), np.uint8)).mean(axis=0)  # an edge may lean a pixel
    apart = int(cfg.fan_edge_apart_mm * cfg.fan_edge_ppm)
    out: list[int] = []
    for i in range(len(down)):
        if down[i] >= cfg.fan_edge_down and down[i] >= down[max(0, i - apart):i + apart + 1].max() and \
                (not out or i - out[-1] >= apart):
            out.append(i)
    return [i / cfg.fan_edge_ppm for i in out]


def cards_by_edges(edges: list[float], card_w: float, cfg: RecogniseConfig = RecogniseConfig()) -> int | None:
    """How many cards a fan holds, from its edges: from the first card's left edge to the last
    card's (the fan's right end less a card's width), in steps of the fan's own step (the
    commonest short gap between edges seen: an edge between two cards of one colour may not
    show). None: too few edges to tell."""
    if len(edges) < 2 or edges[-1] - edges[0] < card_w * (1 - cfg.fan_edge_slack):
        return None
    reach = edges[-1] - edges[0] - card_w  # first card's left edge to the last card's
    if reach < cfg.fan_edge_apart_mm:
        return 1
    gaps = np.diff(edges[:-1])
    if not len(gaps):
        return None
    short = gaps[gaps <= gaps.min() * 1.4]
    return int(round(reach / float(np.median(short)))) + 1
