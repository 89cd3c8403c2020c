"""Finding a card's exact place: the rectangle of known size whose whole outline stands out.

The top card of a pile is the only one whose four edges are all visible, so among
rectangles of the card's size near a first guess, the one with the strongest
contrast across all four sides (the weakest side counts) is the top card. The
first guess comes from where the table changed, or from a pile's known place.
Works at 1 px/mm in table coordinates (`Calibration.crop`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.recognise.patches import Pose

EDGE_OFFSET = 1.5
CORNER_SKIP = 7.0
UNEVEN_WEIGHT = 2.0


@dataclass
class Found:
    pose: Pose  # table mm
    contrast: float  # how well the outline stands out all round (edge contrast less unevenness inside); may be < 0


@functools.lru_cache(maxsize=8)
def _side_samples(card_mm) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Points along the four sides of an upright card centred at 0, their outward normals, and
    where each side's run of points starts and how many it has."""
    w, h = card_mm
    pts, normals, side = [], [], []
    for k, (a, b, n) in enumerate(((( -w / 2, -h / 2), (w / 2, -h / 2), (0, -1)),
                                   ((w / 2, -h / 2), (w / 2, h / 2), (1, 0)),
                                   ((w / 2, h / 2), (-w / 2, h / 2), (0, 1)),
                                   ((-w / 2, h / 2), (-w / 2, -h / 2), (-1, 0)))):
        length = np.hypot(b[0] - a[0], b[1] - a[1])
        ts = np.arange(CORNER_SKIP, length - CORNER_SKIP, 1.5) / length
        for t in ts:
            pts.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
            normals.append(n)
            side.append(k)
    side = np.array(side)
    starts = np.flatnonzero(np.r_[True, side[1:] != side[:-1]])
    return np.array(pts), np.array(normals, float), starts, np.diff(np.r_[starts, len(side)]).astype(np.float32)


def refine(view: np.ndarray, origin_mm: tuple[float, float], guess: Pose, card_mm,
           search_mm: float = 8.0, search_deg: float = 10.0, step_mm: float = 2.0, step_deg: float = 2.0) -> Found:
    """Best card rectangle near `guess` in a 1 px/mm table crop `view` whose top-left is at `origin_mm`."""
    pts, normals, starts, per_count = _side_samples(tuple(card_mm))
    H, W = view.shape[:2]
    # one flat plane per channel: gathering from a plane is several times faster than from (H, W, 3)
    planes = [view[:, :, ch].astype(np.float32).ravel() for ch in range(3)]
    best: Found | None = None
    # coarse to fine: a wide search in big steps, then twice around the best in steps a third as big;
    # every turn and shift of a stage at once, as arrays (turn, x shift, y shift, point on the outline)
    sm, sd = search_mm, search_deg
    dm, dd = max(step_mm, search_mm / 4), max(step_deg, search_deg / 5)
    for stage in range(3):
        centre = guess if best is None else best.pose
        offs = np.arange(-sm, sm + 1e-6, dm)
        angs = np.arange(-sd, sd + 1e-6, dd) + centre.angle
        sm, sd, dm, dd = dm, dd, dm / 3, dd / 3
        r = np.radians(angs)[:, None]
        c, s = np.cos(r), np.sin(r)
        px, py = pts[:, 0] * c - pts[:, 1] * s, pts[:, 0] * s + pts[:, 1] * c  # (turns, points)
        nx, ny = normals[:, 0] * c - normals[:, 1] * s, normals[:, 0] * s + normals[:, 1] * c
        cx = (centre.x - origin_mm[0] + offs)[None, :, None]
        cy = (centre.y - origin_mm[1] + offs)[None, :, None]

        def at(bx, by):  # flat pixel index of each point, for every turn and shift
            xi = np.clip(np.rint(cx + bx[:, None, :]), 0, W - 1).astype(np.intp)
            yi = np.clip(np.rint(cy + by[:, None, :]), 0, H - 1).astype(np.intp)
            return yi[:, None, :, :] * W + xi[:, :, None, :]

        at_in = at(px - EDGE_OFFSET * nx, py - EDGE_OFFSET * ny)
        at_out = at(px + EDGE_OFFSET * nx, py + EDGE_OFFSET * ny)
        diff, uneven = 0.0, 0.0
        for plane in planes:
            inner = plane.take(at_in)
            diff = diff + np.abs(inner - plane.take(at_out))
            # just inside its edge a card is one plain colour all round; a wrong rectangle cuts through
            # numerals, balls and other cards, so uneven colour inside counts against it
            n = inner.shape[-1]
            mean = inner.sum(-1) / n
            uneven = uneven + np.sqrt(np.maximum(np.einsum("...p,...p->...", inner, inner) / n - mean * mean, 0))
        per_side = np.add.reduceat(diff, starts, axis=-1) / per_count
        score = per_side.min(-1) * 0.6 + per_side.mean(-1) * 0.4 - UNEVEN_WEIGHT * uneven
        k, i, j = np.unravel_index(int(score.argmax()), score.shape)
        if best is None or score[k, i, j] > best.contrast:
            best = Found(Pose(float(centre.x + offs[i]), float(centre.y + offs[j]), float(angs[k])),
                         float(score[k, i, j]))
    return best


def guess_from_mask(mask: np.ndarray, origin_mm: tuple[float, float], card_mm) -> Pose | None:
    """A first guess of a card from a 1 px/mm mask of changed pixels: its fitted rectangle,
    turned so that the long side is the card's height."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 0.15 * card_mm[0] * card_mm[1]:
        return None
    (cx, cy), (w, h), a = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    if w > h:
        a += 90.0
    return Pose(cx + origin_mm[0], cy + origin_mm[1], float(a))


def change_mask(after: np.ndarray, before: np.ndarray, threshold: int = 30) -> np.ndarray:
    """Where `after` differs from `before` (1 px/mm crops of one place), the light of the two
    moments made alike first: a lamp or a cloud between them is not a change (and in dimmer
    light every difference is smaller: the threshold is scaled with it)."""
    gain = np.median((after.reshape(-1, 3).astype(np.float32) + 1) / (before.reshape(-1, 3).astype(np.float32) + 1), 0)
    if np.any(np.abs(gain - 1) > 0.04):
        before = np.clip(before.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        threshold = threshold * float(np.clip(gain.mean(), 0.3, 1.0))
    d = cv2.absdiff(after, before).max(axis=2) > threshold
    d = cv2.morphologyEx(d.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(d, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8)).astype(bool)


def cover(mask: np.ndarray, origin_mm, pose: Pose, card_mm) -> float:
    """Share of the card at `pose` where `mask` (1 px/mm, at origin_mm) is set."""
    poly = (pose.corners(card_mm) - origin_mm).astype(np.int32)
    m = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(m, poly, 1)
    inside = m.astype(bool)
    return float(mask[inside].mean()) if inside.any() else 0.0


def light_level(top: np.ndarray) -> float:
    """How bright the light on a whole-table top view is, against a well-lit table (1.0): the
    whitest things (markers, card whites) reflect what the lamp gives. Contrasts scale with it."""
    grey = cv2.cvtColor(top[::2, ::2], cv2.COLOR_BGR2GRAY)
    return float(np.clip(np.percentile(grey, 99.5) / 230.0, 0.3, 1.0))


GLARE_CELL_MM = 10  # the cloth's colour is looked at in cells this big
GLARE_SMOOTH_MM = 30  # and smoothed over this far (glare and light fall-off change slowly)


def cloth_field(top: np.ndarray, threshold: int = 45) -> np.ndarray:
    """The cloth's colour at every place of a 1 px/mm top view (H, W, 3 float32).

    The table's most common colour, brightened where a lamp's glare lies on it. Glare adds the
    lamp's light to every channel alike (a channel at full brightness can gain no more); a card
    of any colour differs from the cloth unevenly. The glare on the cloth's own cells (near its
    colour, or evenly brighter) is smoothed over them and filled in from around where cards lie;
    only glare moves the field, so a card coloured like the cloth stays off it."""
    cloth = np.median(top[::8, ::8].reshape(-1, 3), axis=0).astype(np.float32)
    f = 1.0 / GLARE_CELL_MM
    if min(top.shape[:2]) * f < 3:
        return np.broadcast_to(cloth, top.shape).astype(np.float32)  # too small a view to tell
    small = cv2.resize(top, None, fx=f, fy=f, interpolation=cv2.INTER_AREA).astype(np.float32)
    gain = small - cloth
    room = small < 245
    top_gain = np.where(room, gain, -np.inf).max(2)
    low_gain = np.where(room, gain, np.inf).min(2)
    # a channel that hit full brightness lost some of its gain, never gained more than the others
    lost = np.where(room, -np.inf, gain).max(2) <= top_gain + 12
    even = np.where(room.any(2), (top_gain - low_gain < 0.35 * gain.mean(2) + 12) & lost, True)
    # glare: evenly brighter by more than the cloth's own weave or grain differs
    glare = even & (gain.min(2) > -8) & (gain.mean(2) > threshold / 2)
    w = (glare | (np.abs(gain).max(2) < threshold)).astype(np.float32)  # the cloth's own cells
    sigma = GLARE_SMOOTH_MM / GLARE_CELL_MM
    lift = gain * glare[..., None]
    near = cv2.GaussianBlur(w, (0, 0), sigma)[..., None]
    filled = np.where(near > 0.05, cv2.GaussianBlur(lift * w[..., None], (0, 0), sigma) / (near + 1e-3), 0)
    return cloth + cv2.resize(filled, (top.shape[1], top.shape[0]), interpolation=cv2.INTER_LINEAR)


def not_cloth(top: np.ndarray, threshold: int = 45, exclude: list[tuple[float, float, float]] = (),
              cloth: np.ndarray | None = None, light: float = 1.0) -> np.ndarray:
    """Where a 1 px/mm top view shows something other than the cloth (uint8 0/1).

    Not the cloth: a colour far from the cloth's (`cloth_field`: glare on the cloth is still
    cloth), or the busy texture of a card (numerals, balls, edges) on a plain cloth, so that
    a blue card on a blue cloth is still found. `exclude`: (x, y, radius) places to ignore,
    such as the markers. `cloth`: the cloth's colour (or its field, cut to this view) when
    known (a small view may be mostly cards). `light`: see `light_level`; in dim light every
    difference is smaller."""
    if cloth is None:
        cloth = cloth_field(top, threshold)
    off = np.abs(top.astype(np.float32) - cloth).max(axis=2) > threshold * light
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mean = cv2.blur(grey, (7, 7))
    std = np.sqrt(np.maximum(cv2.blur(grey * grey, (7, 7)) - mean * mean, 0))
    busy = std > 12.0 * light
    busy = cv2.morphologyEx(busy.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8)).astype(bool)
    off = (off | busy).astype(np.uint8)
    for x, y, r in exclude:
        cv2.circle(off, (int(x), int(y)), int(r), 0, -1)
    return cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))


def find_cards(top: np.ndarray, card_mm, exclude: list[tuple[float, float, float]] = (),
               threshold: int = 45, cloth: np.ndarray | None = None) -> list[Found]:
    """Every card (or pile top) lying on a 1 px/mm top view, found blob by blob.

    A blob of `not_cloth` larger than a messy pile is first split into as many parts as
    cards fit in it (two piles that touch, a row of cards); in each part the best whole card
    is found. Cards of one pile (within 40 mm of one found already) are not counted twice.
    `cloth`: the cloth's field when known (`cloth_field`)."""
    off = not_cloth(top, threshold, exclude, cloth)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(off, connectivity=8)
    H, W = off.shape
    area = card_mm[0] * card_mm[1]
    out: list[Found] = []
    for k in range(1, n):
        x, y, w, h, a = stats[k]
        if a < 0.5 * area or x < 3 or y < 3 or x + w > W - 3 or y + h > H - 3:
            continue  # too small, or touching the edge (arms)
        blob = labels[y:y + h, x:x + w] == k
        for part in _split(blob, max(1, int(round(a / (1.25 * area))))):
            guess = guess_from_mask(part, (x, y), card_mm)
            if guess is None:
                continue
            # a messy pile's outline says little about the top card's turn: search all turns
            found = max((refine(top, (0, 0), Pose(guess.x, guess.y, guess.angle + turn), card_mm,
                                search_mm=14, search_deg=30) for turn in (0.0, 60.0, 120.0)), key=lambda f: f.contrast)
            near = [i for i, f in enumerate(out) if np.hypot(found.pose.x - f.pose.x, found.pose.y - f.pose.y) < 40]
            if not near:
                out.append(found)
            elif found.contrast > out[near[0]].contrast:
                out[near[0]] = found  # the same pile seen better
    return out


def _split(blob: np.ndarray, n: int) -> list[np.ndarray]:
    """A blob cut into `n` parts by clustering its pixels (k-means on their places)."""
    if n <= 1:
        return [blob]
    ys, xs = np.nonzero(blob)
    pts = np.stack([xs, ys], 1).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    cv2.setRNGSeed(0)
    n = min(n, 12)
    _, lab, _ = cv2.kmeans(pts, n, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    parts = []
    for i in range(n):
        m = np.zeros_like(blob)
        sel = lab.ravel() == i
        m[ys[sel], xs[sel]] = True
        parts.append(m)
    return parts
