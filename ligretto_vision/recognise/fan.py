"""Counting a player's face-up fan of stack cards at the end of the round.

The fan lies where the player's line lay (`LinePlace`, learnt when watching began): its cards
overlap along the line, each a step further to the player's right, the top one whole. Where it
lies is what of the line's band is not the cloth; how many cards it holds follows from its
length, one card's width and the step: the step at which the fan looks most like itself shifted
by one step (each card shows the same part of its print: its edge, its corner numeral), checked
against the cards' long edges. Neither needs a numeral read, nor edges between cards of one
colour, nor a step fixed in advance.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.geometry.zones import LinePlace
from ligretto_vision.recognise.patches import Pose, card_patch


@dataclass(frozen=True)
class FanPlace:
    pose: Pose  # the fan's middle, turned as its cards lie
    length: float  # mm along the line, from its left-most card's left edge to the top card's right edge


def fan_place(off_cloth: np.ndarray, line: LinePlace, card_mm, cfg: RecogniseConfig = RecogniseConfig(),
              straighten: bool = True) -> FanPlace | None:
    """Where the fan lies in a 1 px/mm mask of what is not the cloth (`_band`): of the runs along the
    band, the one that overlaps the player's line most. None: no run a card wide over the line."""
    w, h = card_mm
    band = _band(off_cloth, line, card_mm, cfg)
    if band is None:
        return None
    cover, u0, lo, (u, v) = band
    span = line.span

    def overlap(r: tuple[float, float]) -> float:
        return max(0.0, min(r[1], span[1]) - max(r[0], span[0])) + 1e-3 * (r[1] - r[0])

    runs = [(u0 + 2.0 * a, u0 + 2.0 * (b + 1)) for a, b in _runs(cover >= cfg.fan_cover, cfg.fan_gap_mm / 2)]
    if not runs:
        return None
    left, right = max(runs, key=overlap)
    if overlap((left, right)) < 1 or right - left < w * (1 - cfg.fan_edge_slack):
        return None  # nothing a card long, or only a neighbour's fan in reach
    x, y = line.at((left + right) / 2, lo + h / 2)
    if straighten:
        # a fan laid a little turned from the line (a seat at an angle): found again along its own
        # outline, the line turned to it about the fan's middle
        g = cfg.fan_gap_mm
        pick = (u >= left - g) & (u <= right + g) & (v >= lo - g) & (v <= lo + h + g)
        if pick.sum() >= 3:
            angle = cv2.minAreaRect(np.stack([u[pick], v[pick]], axis=1).astype(np.float32))[2]
            turn = (angle + 45.0) % 90.0 - 45.0  # the outline's side nearest the line's way
            if cfg.fan_turn_least_deg <= abs(turn) <= cfg.fan_turn_most_deg:
                again = fan_place(off_cloth, line.turned(turn, (x, y), (right - left) / 2), card_mm, cfg, straighten=False)
                if again is not None:
                    return again
    return FanPlace(Pose(x, y, line.card_angle), right - left)


def _band(off_cloth: np.ndarray, line: LinePlace, card_mm, cfg: RecogniseConfig):
    """Round the player's line (a card's height either side, `fan_reach_cards` past its ends), in
    2 mm cells: the band a card's height across where most places are covered nearly all the way
    across it (a patterned or busy cloth's blots are not), as (each cell along it: the share of the
    band's height off the cloth, where the cells begin along the line, where the band begins into
    the table, the off-cloth points near the line as (along, into)). None: too little off the cloth."""
    w, h = card_mm
    span, reach = line.span, cfg.fan_reach_cards * w
    corners = [line.at(u, v) for u in (span[0] - reach, span[1] + reach) for v in (-h, h)]
    x0, y0 = (max(0, int(min(p[i] for p in corners))) for i in (0, 1))
    x1, y1 = (int(max(p[i] for p in corners)) + 1 for i in (0, 1))
    ys, xs = np.nonzero(off_cloth[y0:y1, x0:x1])
    u, v = line.local(xs + x0 + 0.5, ys + y0 + 0.5)
    u0 = span[0] - reach
    near = (np.abs(v) <= h) & (u >= u0) & (u <= span[1] + reach)
    u, v = u[near], v[near]
    if len(u) < cfg.fan_least_share * w * h:
        return None
    cells = np.zeros((int(h) + 2, int((span[1] - span[0] + 2 * reach) / 2) + 2))
    np.add.at(cells, (((v + h) / 2).astype(int), ((u - u0) / 2).astype(int)), 0.25)
    k = max(1, int(round(h / 2)))
    down = np.cumsum(np.vstack([np.zeros((1, cells.shape[1])), cells]), axis=0)
    cover = (down[k:] - down[:-k]) / k  # per row the band may start at: its share off the cloth, cell by cell
    # the band's depth from the line's own length (a neighbour's fan in reach has another)
    own = cover[:, int(reach / 2):int((span[1] - u0) / 2) + 1]
    full = (own >= cfg.fan_cover).sum(axis=1)
    # of the depths where as many places are covered, the one where most of the band is: the
    # fan's own (a band part over the cloth still has most places covered two thirds deep)
    top = int(np.argmax(full + own.sum(axis=1) / (own.shape[1] + 1)))
    if full[top] * 2 < w * (1 - cfg.fan_edge_slack):
        return None
    return cover[top], u0, 2.0 * top - h, (u, v)


def _runs(on: np.ndarray, gap: float) -> list[tuple[int, int]]:
    """The runs of True (first, last index), gaps of up to `gap` indices closed."""
    runs: list[list[int]] = []
    for i in np.nonzero(on)[0]:
        if runs and i - runs[-1][1] <= gap:
            runs[-1][1] = int(i)
        else:
            runs.append([int(i), int(i)])
    return [(a, b) for a, b in runs]


def fan_strip(image: np.ndarray, to_px, place: FanPlace, card_mm, cfg: RecogniseConfig = RecogniseConfig()) -> np.ndarray:
    """The fan cut out upright for its player, `fan_edge_ppm` px per mm, `fan_margin_mm` of cloth each side."""
    return card_patch(image, to_px, place.pose, (place.length + 2 * cfg.fan_margin_mm, card_mm[1]), cfg.fan_edge_ppm)


def cards_in_fan(strip: np.ndarray, length: float, card_w: float, cfg: RecogniseConfig = RecogniseConfig()) -> int:
    """How many cards a fan `length` mm long holds, from its strip (`fan_strip`): the number whose
    step makes the fan most like itself shifted by a step, and whose edges fit those seen."""
    reach = length - card_w  # the left-most card's left edge to the top card's
    if reach < cfg.fan_step_least_mm:
        return 1
    ppm, m = cfg.fan_edge_ppm, cfg.fan_margin_mm
    gx, gy = _gradients(strip)
    structure = (gx + gy)[:, int(round(m * ppm)):int(round((m + length) * ppm))]  # the print's strokes, any colour
    edges = np.array([e - m for e in fan_edges(gx, gy, cfg) if cfg.fan_edge_apart_mm / 2 < e - m < length - cfg.fan_edge_apart_mm / 2])
    # the step: how alike the fan is to itself shifted by each step it may have, and how its edges
    # fit; the number of cards: the fan's length in such steps (a length a little off, where a card
    # looks like the cloth at an end, is still right to within half a step)
    steps = np.arange(cfg.fan_step_least_mm, min(reach, card_w / 2) + 0.5, 0.5)
    if not len(steps):
        return 1
    alike = np.array([_alike_shifted(structure, reach * ppm, s * ppm) for s in steps])
    fits = np.array([_fit_steps(edges, s, length, min(s / 3, cfg.fan_edge_tol_mm), cfg.fan_edge_apart_mm / 2)
                     for s in steps])
    step = float(steps[int(np.argmax(alike + cfg.fan_edge_weight * fits))])
    return min(cfg.fan_most, int(round(reach / step)) + 1)


def _gradients(strip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strip's steepest colour steps across and down it, per pixel."""
    g = cv2.GaussianBlur(strip.astype(np.float32), (0, 0), 1.0)
    return (np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)).max(axis=2),
            np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)).max(axis=2))


def _alike_shifted(structure: np.ndarray, reach_px: float, step_px: float) -> float:
    """Correlation of the fan's covered part (its first `reach_px` columns) with itself a step on:
    at the cards' own step each card's strip lines up with the next one's."""
    k, n = int(round(step_px)), int(round(reach_px))
    return _alike(structure[:, :n], structure[:, k:k + n])


def _alike(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two pictures (the narrower one's width of each)."""
    w = min(a.shape[1], b.shape[1])
    a, b = a[:, :w] - a[:, :w].mean(), b[:, :w] - b[:, :w].mean()
    norm = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / norm if norm > 0 else 0.0


def _fit_steps(edges: np.ndarray, step: float, length: float, tol: float, clear: float) -> float:
    """How well edges seen fit cards a `step` apart, wherever the first one lies (an end of the fan
    found a little off must not shift every edge expected)."""
    if not len(edges):
        return -0.5 * max(0, int(length / step) - 1)
    best = -np.inf
    for e in edges:
        first = e % step
        expected = first + step * np.arange(int((length - first) / step) + 1)
        # between the outermost edges seen: the top card shows none across its face
        inside = (expected > max(clear, edges.min() - step / 2)) & (expected < min(length - clear, edges.max() + step / 2))
        best = max(best, _fit(expected[inside], edges, tol))
    return best


def _fit(expected: np.ndarray, seen: np.ndarray, tol: float) -> float:
    """How well edges seen fit those expected: up to one for each expected one seen (the nearer, the
    more), less one for each seen that none explains, less a half for each expected one not seen
    (two cards of one colour)."""
    if not len(seen) or not len(expected):
        return -0.5 * len(expected) - len(seen)
    off = np.abs(expected[:, None] - seen[None, :])
    nearest = off.min(axis=1)
    found = nearest <= tol
    return float((1 - nearest[found] / tol).sum()) - float((off.min(axis=0) > tol).sum()) - 0.5 * float((~found).sum())


def count_fan(image: np.ndarray, to_px, line: LinePlace, off_cloth: np.ndarray, card_mm,
              cfg: RecogniseConfig = RecogniseConfig()) -> int:
    """How many cards the player whose line is `line` has fanned out (0: no fan there)."""
    place = fan_place(off_cloth, line, card_mm, cfg)
    if place is None:
        return 0
    return cards_in_fan(fan_strip(image, to_px, place, card_mm, cfg), place.length, card_mm[0], cfg)


def fan_edges(gx: np.ndarray, gy: np.ndarray, cfg: RecogniseConfig = RecogniseConfig()) -> list[float]:
    """Where a fan's cards' long edges lie (mm from the strip's left), from the gradients
    (`_gradients`) of a strip cut along it (`cfg.fan_edge_ppm` px/mm, the cards upright): a card's
    edge runs down most of its height, a numeral's stroke does not."""
    h = gx.shape[0]
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
