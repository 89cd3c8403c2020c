"""Finding a card's outline: the one place that does it, for the referee's top views and for the
panel's enrollment photos.

On a top view (1 px/mm in table coordinates, `Calibration.crop`) a card's place is the
rectangle of known size whose whole outline stands out. The top card of a pile is the only one
whose four edges are all visible, so among rectangles of the card's size near a first guess, the
one with the strongest contrast across all four sides (the weakest side counts) is the top card.
The first guess comes from where the table changed, or from a pile's known place.

In a photo of one card (no calibration) the card is the largest four-cornered outline of a
card's proportions (`card_in_photo`); in a photo of several cards laid apart, each is one such
outline about as big as the others (`cards_in_photo`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.detect.cloth import cloth_busy, cloth_field, cloth_spread, not_cloth
from ligretto_vision.recognise.patches import Pose

DEFAULTS = DetectConfig()


@dataclass
class Found:
    pose: Pose  # table mm
    contrast: float  # how well the outline stands out all round (edge contrast less unevenness inside); may be < 0


@functools.lru_cache(maxsize=8)
def _side_samples(card_mm, corner_skip: float, step_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Points along the four sides of an upright card centred at 0, their outward normals, and
    where each side's run of points starts and how many it has."""
    w, h = card_mm
    pts, normals, side = [], [], []
    for k, (a, b, n) in enumerate(((( -w / 2, -h / 2), (w / 2, -h / 2), (0, -1)),
                                   ((w / 2, -h / 2), (w / 2, h / 2), (1, 0)),
                                   ((w / 2, h / 2), (-w / 2, h / 2), (0, 1)),
                                   ((-w / 2, h / 2), (-w / 2, -h / 2), (-1, 0)))):
        length = np.hypot(b[0] - a[0], b[1] - a[1])
        ts = np.arange(corner_skip, length - corner_skip, step_mm) / length
        for t in ts:
            pts.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
            normals.append(n)
            side.append(k)
    side = np.array(side)
    starts = np.flatnonzero(np.r_[True, side[1:] != side[:-1]])
    return np.array(pts), np.array(normals, float), starts, np.diff(np.r_[starts, len(side)]).astype(np.float32)


def refine(view: np.ndarray, origin_mm: tuple[float, float], guess: Pose, card_mm,
           search_mm: float | None = None, search_deg: float | None = None, step_mm: float | None = None,
           step_deg: float | None = None, cfg: DetectConfig = DEFAULTS) -> Found:
    """Best card rectangle near `guess` in a 1 px/mm table crop `view` whose top-left is at `origin_mm`.
    The search's reach and finest steps are `cfg`'s (`refine_*`) unless given."""
    search_mm = cfg.refine_search_mm if search_mm is None else search_mm
    search_deg = cfg.refine_search_deg if search_deg is None else search_deg
    step_mm = cfg.refine_step_mm if step_mm is None else step_mm
    step_deg = cfg.refine_step_deg if step_deg is None else step_deg
    pts, normals, starts, per_count = _side_samples(tuple(card_mm), cfg.corner_skip, cfg.outline_step_mm)
    H, W = view.shape[:2]
    # one flat plane per channel: gathering from a plane is several times faster than from (H, W, 3),
    # and from bytes faster than from floats
    planes = [np.ascontiguousarray(view[:, :, ch]).ravel() for ch in range(3)]
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
        score = _outline_scores(planes, (H, W), pts, normals, starts, per_count,
                                (centre.x - origin_mm[0] + offs, centre.y - origin_mm[1] + offs, angs), cfg)
        k, i, j = np.unravel_index(int(score.argmax()), score.shape)
        if best is None or score[k, i, j] > best.contrast:
            best = Found(Pose(float(centre.x + offs[i]), float(centre.y + offs[j]), float(angs[k])),
                         float(score[k, i, j]))
    return best


def _outline_scores(planes, shape, pts, normals, starts, per_count, grid, cfg: DetectConfig) -> np.ndarray:
    """How well an outline stands out (turn, x shift, y shift) for every candidate of `grid`
    (centre xs and ys in the view's pixels, turns in degrees)."""
    H, W = shape
    xs, ys, angs = grid
    r = np.radians(angs)[:, None]
    c, s = np.cos(r), np.sin(r)
    px, py = pts[:, 0] * c - pts[:, 1] * s, pts[:, 0] * s + pts[:, 1] * c  # (turns, points)
    nx, ny = normals[:, 0] * c - normals[:, 1] * s, normals[:, 0] * s + normals[:, 1] * c
    cx = xs[None, :, None]
    cy = ys[None, :, None]

    def at(bx, by):  # flat pixel index of each point, for every turn and shift
        xi = np.clip(np.rint(cx + bx[:, None, :]), 0, W - 1).astype(np.int32)
        yi = np.clip(np.rint(cy + by[:, None, :]), 0, H - 1).astype(np.int32)
        return (yi * W)[:, None, :, :] + xi[:, :, None, :]

    at_in = at(px - cfg.edge_offset * nx, py - cfg.edge_offset * ny)
    at_out = at(px + cfg.edge_offset * nx, py + cfg.edge_offset * ny)
    diff, uneven = 0.0, 0.0
    for plane in planes:
        inner8 = plane.take(at_in)
        inner = inner8.astype(np.float32)
        diff = diff + cv2.absdiff(inner8, plane.take(at_out)).astype(np.float32)
        # just inside its edge a card is one plain colour all round; a wrong rectangle cuts through
        # numerals, balls and other cards, so uneven colour inside counts against it
        n = inner.shape[-1]
        mean = inner.sum(-1) / n
        uneven = uneven + np.sqrt(np.maximum(np.einsum("...p,...p->...", inner, inner) / n - mean * mean, 0))
    per_side = np.add.reduceat(diff, starts, axis=-1) / per_count
    return per_side.min(-1) * cfg.weakest_side + per_side.mean(-1) * cfg.mean_side - cfg.uneven_weight * uneven


def guess_from_mask(mask: np.ndarray, origin_mm: tuple[float, float], card_mm,
                    cfg: DetectConfig = DEFAULTS) -> Pose | None:
    """A first guess of a card from a 1 px/mm mask of changed pixels: its fitted rectangle,
    turned so that the long side is the card's height."""
    ys, xs = np.nonzero(mask)
    if len(xs) < cfg.guess_min_share * card_mm[0] * card_mm[1]:
        return None
    (cx, cy), (w, h), a = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    if w > h:
        a += 90.0
    return Pose(cx + origin_mm[0], cy + origin_mm[1], float(a))


def card_area(shape: tuple[int, int], origin_mm, pose: Pose, card_mm) -> np.ndarray:
    """Where a card at `pose` lies in a 1 px/mm picture of `shape` at origin_mm (bool)."""
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(m, (pose.corners(card_mm) - origin_mm).astype(np.int32), 1)
    return m.astype(bool)


def cover(mask: np.ndarray, origin_mm, pose: Pose, card_mm) -> float:
    """Share of the card at `pose` where `mask` (1 px/mm, at origin_mm) is set."""
    inside = card_area(mask.shape, origin_mm, pose, card_mm)
    return float(mask[inside].mean()) if inside.any() else 0.0


def find_cards(top: np.ndarray, card_mm, exclude: list[tuple[float, float, float]] = (),
               cloth: np.ndarray | None = None, cfg: DetectConfig = DEFAULTS, busy: float | None = None,
               within: tuple[float, float, float, float] | None = None) -> list[Found]:
    """Every card (or pile top) lying on a 1 px/mm top view, found blob by blob.

    A blob of `not_cloth` larger than a messy pile is first split into as many parts as
    cards fit in it (two piles that touch, a row of cards); in each part the best whole card
    is found. Cards of one pile (within `cfg.same_pile_mm` of one found already) are not
    counted twice. `cloth`, `busy`: the bare cloth's field (`cloth_field`) and busyness
    (`cloth_busy`) when known; else taken from `top`. `within` (x0, y0, x1, y1 mm): only the cards
    lying there (a part of the table looked at again: blobs and guesses further away than a card's
    refinement moves, `find_search_mm`, are not looked at)."""
    m = cfg.find_search_mm
    if cloth is None:
        cloth = cloth_field(top, cfg)
    busy = cloth_busy(top, cfg) if busy is None else busy
    off = not_cloth(top, exclude, cloth, cfg=cfg, spread=cloth_spread(top, cloth, cfg), busy=busy)
    area = card_mm[0] * card_mm[1]
    out: list[Found] = []
    looked = None if within is None else (within[0] - m, within[1] - m, within[2] + m, within[3] + m)
    for x, y, blob, a in _blobs(off, area, cfg, near=looked):
        for part in _split(blob, max(1, int(round(a / (cfg.split_card_area * area)))), cfg.split_max_parts):
            guess = guess_from_mask(part, (x, y), card_mm, cfg)
            if guess is None or not _in_box(guess.x, guess.y, looked):
                continue
            # a messy pile's outline says little about the top card's turn: search all turns
            found = max((refine(top, (0, 0), Pose(guess.x, guess.y, guess.angle + turn), card_mm,
                                search_mm=cfg.find_search_mm, search_deg=cfg.find_search_deg, cfg=cfg)
                         for turn in cfg.find_turns), key=lambda f: f.contrast)
            near = [i for i, f in enumerate(out)
                    if np.hypot(found.pose.x - f.pose.x, found.pose.y - f.pose.y) < cfg.same_pile_mm]
            if not near:
                out.append(found)
            elif found.contrast > out[near[0]].contrast:
                out[near[0]] = found  # the same pile seen better
    return [f for f in out if _in_box(f.pose.x, f.pose.y, within)]


def _in_box(x: float, y: float, box: tuple[float, float, float, float] | None) -> bool:
    return box is None or (box[0] <= x <= box[2] and box[1] <= y <= box[3])


def _blobs(off: np.ndarray, area: float, cfg: DetectConfig, thin: bool = True,
           near: tuple[float, float, float, float] | None = None):
    """The blobs of `off` that may hold cards, as (x, y, mask, area): not too small, not touching the
    view's edge (arms), and meeting the box `near` (x0, y0, x1, y1), if given. A blob that touches
    the edge may be cards joined by the cloth's own long thin lines (a wooden table's seams, a brick
    cloth's mortar): opened wider (`find_thin_px`), its parts are looked at again, once."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(off, connectivity=8)
    H, W = off.shape
    edge = cfg.find_edge_px
    for k in range(1, n):
        x, y, w, h, a = stats[k]
        if a < cfg.find_min_cards * area or (near is not None and (
                x + w < near[0] or x > near[2] or y + h < near[1] or y > near[3])):
            continue
        blob = labels[y:y + h, x:x + w] == k
        if x < edge or y < edge or x + w > W - edge or y + h > H - edge:
            if thin:
                opened = np.zeros_like(off)
                opened[y:y + h, x:x + w] = cv2.morphologyEx(blob.astype(np.uint8), cv2.MORPH_OPEN,
                                                            np.ones((cfg.find_thin_px, cfg.find_thin_px), np.uint8))
                yield from _blobs(opened, area, cfg, thin=False, near=near)
            continue
        yield x, y, blob, a


def _split(blob: np.ndarray, n: int, most: int) -> list[np.ndarray]:
    """A blob cut into `n` parts (at most `most`) by clustering its pixels (k-means on their places)."""
    if n <= 1:
        return [blob]
    ys, xs = np.nonzero(blob)
    pts = np.stack([xs, ys], 1).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    cv2.setRNGSeed(0)
    n = min(n, most)
    _, lab, _ = cv2.kmeans(pts, n, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    parts = []
    for i in range(n):
        m = np.zeros_like(blob)
        sel = lab.ravel() == i
        m[ys[sel], xs[sel]] = True
        parts.append(m)
    return parts


# ---- one card in a photo (the panel's enrollment) -------------------------------------------------------
def card_in_photo(img: np.ndarray, card_mm, cfg: DetectConfig = DEFAULTS) -> np.ndarray | None:
    """The four corners (TL, TR, BR, BL, long side vertical) in `img` px of the card a photo
    shows: the largest four-cornered outline of a card's proportions; None when there is none."""
    h, w = img.shape[:2]
    s = min(1.0, cfg.photo_work_px / max(h, w))
    small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA) if s < 1 else img
    area_img = float(small.shape[0] * small.shape[1])
    ratio = max(card_mm) / min(card_mm)
    best, best_area = None, 0.0
    for mask in _photo_masks(small, cfg):
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for cnt in contours:
            area = cv2.contourArea(cnt)
            if area < cfg.photo_min_area * area_img or area <= best_area:
                continue
            q = _card_quad(cnt, area, small.shape[:2], ratio, cfg)
            if q is not None:
                best, best_area = q, area
    if best is None:
        return None
    c = best.mean(0)
    best = c + (best - c) * cfg.photo_shrink  # the traced outline lies a pixel or two outside the card
    return best / s


def cards_in_photo(img: np.ndarray, card_mm, cfg: DetectConfig = DEFAULTS) -> list[np.ndarray]:
    """The four corners (TL, TR, BR, BL, long side vertical) in `img` px of every whole card in a
    photo of cards laid apart on a plain table (the ten numbers of one colour), in no set order.

    Outlines of a card's proportions are kept when about as big as most such (`photo_same_size`
    of their median: two touching cards traced as one, a numeral box are not a card); each card
    counts once, by its biggest outline (its edge is traced in several masks; a framed or
    white-margin print's inner edge is a smaller one around the same centre, and cutting along it
    would cut off the print's margin). Besides `_photo_masks`, the table's colour is taken away
    (`_off_cloth`): a card's face is then one blob even where its edge is faint."""
    h, w = img.shape[:2]
    # ten cards are small in a photo: a smaller photo is enlarged, so that the masks' smoothing and
    # closing (in px) stay small beside each card
    s = cfg.photo_work_px / max(h, w)
    small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))),
                       interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    min_area = cfg.photo_cards_min_area * float(small.shape[0] * small.shape[1])
    ratio = max(card_mm) / min(card_mm)
    found: list[tuple[float, np.ndarray]] = []
    for mask in [*_photo_masks(small, cfg), _off_cloth(small, cfg)]:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for cnt in contours:
            area = cv2.contourArea(cnt)
            if area >= min_area:
                q = _card_quad(cnt, area, small.shape[:2], ratio, cfg)
                if q is not None:
                    found.append((float(cv2.contourArea(q)), q))
    if not found:
        return []
    typical = float(np.median([a for a, _ in found]))
    kept: list[np.ndarray] = []
    for area, q in sorted(found, key=lambda f: -f[0]):
        if abs(np.log(area / typical)) > np.log(cfg.photo_same_size):
            continue
        if not any(_inside(q, k) or _inside(k, q) for k in kept):  # else: this card, seen already
            kept.append(q)
    # the traced outline lies a pixel or two outside the card
    return [(q.mean(0) + (q - q.mean(0)) * cfg.photo_shrink) / s for q in kept]


def _inside(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the centre of quad `a` lies inside quad `b`."""
    c = a.mean(0)
    return cv2.pointPolygonTest(b.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0


def _off_cloth(small: np.ndarray, cfg: DetectConfig) -> np.ndarray:
    """Where a photo of cards laid apart is not the table: colour far from the table's (its colour
    along the photo's edge, where no card lies), split by Otsu. A card's whole face stands out, its
    numerals and motif inside, so a low-contrast edge still shows as the blob's outline."""
    blur = cv2.GaussianBlur(small, (cfg.photo_blur_px, cfg.photo_blur_px), 0).astype(np.int16)
    b = cfg.photo_border_px + 1
    edge = np.concatenate([blur[:b].reshape(-1, 3), blur[-b:].reshape(-1, 3), blur[:, :b].reshape(-1, 3),
                           blur[:, -b:].reshape(-1, 3)])
    far = np.abs(blur - np.median(edge, axis=0).astype(np.int16)).max(2).astype(np.uint8)
    _, mask = cv2.threshold(far, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # a card's numerals may be the table's colour: its holes are filled; a shadow joining two cards
    # is cut (thinner than `photo_close_px`)
    blobs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = cv2.drawContours(np.zeros_like(mask), blobs, -1, 255, cv2.FILLED)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((cfg.photo_close_px, cfg.photo_close_px), np.uint8))


def _photo_masks(small: np.ndarray, cfg: DetectConfig) -> list[np.ndarray]:
    """Binary pictures whose outlines may include the card's: edges (any colour channel) and both Otsu sides."""
    blur = cv2.GaussianBlur(small, (cfg.photo_blur_px, cfg.photo_blur_px), 0)
    edges = np.zeros(small.shape[:2], np.uint8)
    for ch in [*cv2.split(blur), cv2.cvtColor(blur, cv2.COLOR_BGR2GRAY)]:
        edges |= cv2.Canny(ch, cfg.photo_canny_low, cfg.photo_canny_high)
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((cfg.photo_close_px, cfg.photo_close_px), np.uint8))
    gray = cv2.cvtColor(blur, cv2.COLOR_BGR2GRAY)
    _, otsu = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return [edges, otsu, 255 - otsu]


def _card_quad(cnt: np.ndarray, area: float, shape, ratio: float, cfg: DetectConfig) -> np.ndarray | None:
    """The corners (TL, TR, BR, BL, long side vertical) of the card a traced outline `cnt` (of
    `area`, in a picture of `shape`) is, or None when it is no whole card of the ratio `ratio`."""
    sh, sw = shape
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in cfg.photo_eps:
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float32)
            break
    if quad is None or not cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.int32)):
        return None
    border = cfg.photo_border_px
    if (quad[:, 0] < border).any() or (quad[:, 1] < border).any() \
            or (quad[:, 0] > sw - 1 - border).any() or (quad[:, 1] > sh - 1 - border).any():
        return None  # touches the picture's edge: the background, or a card cut off
    qarea = cv2.contourArea(quad)
    if qarea > cfg.photo_max_area * float(sh * sw) or area < cfg.photo_solid * qarea:
        return None
    q = _clockwise(quad)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)  # top, right, bottom, left
    across, along = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    long_, short = max(across, along), min(across, along)
    if short <= 0 or not ratio / cfg.photo_ratio_slack <= long_ / short <= ratio * cfg.photo_ratio_slack:
        return None
    # a card's outline runs along its four sides (a cluster of balls or numerals only roughly)
    pts = cnt.reshape(-1, 2).astype(np.float32)
    pts = pts[:: max(1, len(pts) // 200)]
    off = np.abs([cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(x), float(y)), True) for x, y in pts])
    if float(off.mean()) > cfg.photo_off_side * short:
        return None
    if across > along:  # lying on its side: start at the corner after, so the long side is vertical
        q = np.roll(q, -1, axis=0)
    return q


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """Four corners as TL, TR, BR, BL (clockwise in the image, y down)."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise on screen, starting somewhere
    start = int(np.argmin(q.sum(1)))
    return np.roll(q, -start, axis=0)
