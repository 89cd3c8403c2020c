"""End-of-round counting: centre cards by their backs, Ligretto stacks by their faces.

Backs are counted in the finished spread: every player's cards carry one printed back,
so each enrolled back (a crop at set-up) is looked for as a template. A card of the spread
may be mostly covered by its neighbours, so the back is cut into tiles and matched tile by
tile: a card counts where at least two of its tiles show in place. Its owner is the
player whose back those tiles match; spread that no enrolled back explains is reported as
unknown backs, never given to anyone. Stacks are counted where they lie: the remaining
stack cards are spread face up in the player's zone as a fan, each card's numeral corner
showing; the numerals are counted along the fan.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import Seat, TableLayout
from ligretto_vision.recognise.patches import Pose, card_patch, numeral_corners
from ligretto_vision.detect.cards import cover
from ligretto_vision.recognise.reader import CardReader, clear_nearest, shade_distance, shade_of

FAN_FACE = 0.8  # a window that shows a numeral this surely sits on a card of the fan
FAN_STEP_MIN_MM = 18.0  # two cards' numerals in one fan are never closer than this
SPREAD_STEP_MM = 28.0  # two cards of a spread lie at least this far apart (two tiles of each must show)
TILES = (2, 3)  # a back is matched in 2 x 3 tiles: any two showing in place make a card
TILE_MATCH = 0.65  # normalised correlation at which a tile of a back (or of its print's whites) shows
TURN_STEP_DEG = 20 / 3  # four turns per way the cards lie; each tile allows a pixel more (`_loose`)
TURN_SPAN_DEG = 10.0  # cards of a spread lie within this of the spread's main direction
PAIR_MATCH = 0.7  # two tiles alone make a card only when they match this well on average
SAME_PRINT = 0.8  # correlation of the whites above which two players' backs are one print in two colours
LOCAL_PX = 2  # the colour check looks this far around where the print was found
FREE_SHARE = 0.5  # a tile more than half under a card found before is not this card's
ON_SPREAD = 0.7  # a card of the spread lies at least this much on it (not half on the cloth)
MATCH_PPM = 0.5  # backs are matched at half a pixel per mm: the print's balls and lettering still show


@dataclass
class SpreadBack:
    owner: str | None  # None: a back no enrolled player's matches
    pose: Pose
    tiles: int  # how many of the back's tiles were seen in place


def _main_direction(view: np.ndarray, mask: np.ndarray) -> float:
    """The direction (mod 90 degrees) of the card edges in the spread, from its gradients."""
    g = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    mag = np.hypot(gx, gy)[mask]
    ang = (np.degrees(np.arctan2(gy, gx))[mask]) % 90.0
    hist = np.bincount(np.round(ang).astype(int) % 90, weights=mag, minlength=90)
    hist = np.convolve(np.concatenate([hist[-3:], hist, hist[:3]]), np.ones(7), "valid")
    return float(np.argmax(hist))


def _tiles(back: np.ndarray, turn: float):
    """The tiles of an upright back turned `turn` degrees clockwise: (tile image, offset of the
    card's centre from the tile's top-left corner)."""
    h, w = back.shape[:2]
    d = int(np.ceil(np.hypot(w, h))) + 2
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -turn, 1.0)
    m[:, 2] += (d / 2 - w / 2, d / 2 - h / 2)
    turned = cv2.warpAffine(back, m, (d, d), flags=cv2.INTER_LINEAR)
    nx, ny = TILES
    tw, th = w / nx, h / ny
    side = int(min(tw, th) * 0.85)  # a square inside the turned tile stays on the card
    a = np.radians(turn)
    c, s = np.cos(a), np.sin(a)
    out = []
    for i in range(nx):
        for j in range(ny):
            u, v = (i + 0.5) * tw - w / 2, (j + 0.5) * th - h / 2  # tile centre, card frame
            x, y = d / 2 + c * u - s * v, d / 2 + s * u + c * v
            x0, y0 = int(round(x - side / 2)), int(round(y - side / 2))
            out.append((np.ascontiguousarray(turned[y0:y0 + side, x0:x0 + side]),
                        (int(round(d / 2 - x0)), int(round(d / 2 - y0)))))
    return out


def _shade(pixels: np.ndarray) -> np.ndarray:
    """The printed colour of some pixels of a back (the darker 60 %) relative to their own whites
    (the brightest 5 %: balls, lettering)."""
    px = pixels.reshape(-1, 3).astype(np.float32)
    lum = px.mean(1)
    ground = np.median(px[lum <= np.percentile(lum, 60)], axis=0) + 4.0
    white = np.median(px[lum >= np.percentile(lum, 95)], axis=0) + 4.0
    return shade_of(ground, white)


def find_backs(view: np.ndarray, origin, spread: np.ndarray, backs: dict[str, np.ndarray],
               card_mm) -> list[SpreadBack]:
    """Every card back in a face-down spread. `view` is the table seen from above at 1 px/mm
    from `origin` (mm), `spread` marks the spread in it, `backs` the enrolled upright backs."""
    if not spread.any() or not backs:
        return []
    main = _main_direction(view, spread)
    k = MATCH_PPM
    view = cv2.resize(view, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    whites = _whites(view)
    backs = {p: cv2.resize(b, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) for p, b in backs.items()}
    steps = np.arange(-TURN_SPAN_DEG, TURN_SPAN_DEG + 0.1, TURN_STEP_DEG)
    turns = [main + q + a for q in (0.0, 90.0, 180.0, 270.0) for a in steps]
    tiles = {(p, j): _tiles(b, t) for p, b in backs.items() for j, t in enumerate(turns)}
    size = view.shape[:2]
    spread = cv2.resize(spread.astype(np.uint8), (size[1], size[0]), interpolation=cv2.INTER_NEAREST)
    prints = _prints(backs)
    # Where might a card of each print lie: per place, its tiles in place (+ their mean correlation
    # / 10) at the best turn. The print's white balls and lettering are the same in every colour.
    best = np.zeros((len(prints), *size), np.float32)
    which = np.zeros((len(prints), *size), np.int16)
    white_tiles = {}
    correlate = _Correlator(whites)
    for i, (print_, _) in enumerate(prints):
        for j, turn in enumerate(turns):
            seen = np.zeros(size, np.float32)
            strength = np.zeros(size, np.float32)
            white_tiles[i, j] = _tiles(print_, turn)
            for tile, (ox, oy) in white_tiles[i, j]:
                r = _loose(correlate(tile))
                # r[y, x]: tile's corner at (x, y), so the card's centre at (x + ox, y + oy)
                x0, y0 = max(0, ox), max(0, oy)
                x1, y1 = min(size[1], r.shape[1] + ox), min(size[0], r.shape[0] + oy)
                part = r[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
                hit = part >= TILE_MATCH
                seen[y0:y1, x0:x1] += hit
                strength[y0:y1, x0:x1] += np.where(hit, part, 0)
            score = seen + strength / np.maximum(seen, 1) / 10
            better = score > best[i]
            best[i][better] = score[better]
            which[i][better] = j
    # Strongest first, each checked in colour. Each part of the picture shows one card only, so a
    # tile taken by a card found before does not count again (a print half-matched a little aside
    # is no card), and a card lies on the spread.
    taken = np.zeros(size, np.uint8)  # 255 where a card found before showed its tiles
    found = []
    per_quarter = len(steps)
    while True:
        i, y, x = np.unravel_index(int(np.argmax(best)), best.shape)
        if best[i, y, x] < 2 + PAIR_MATCH / 10:  # two tiles at least, and two alone must match well
            break
        j = int(which[i, y, x])
        near = [jj for jj in (j, j - 1, j + 1) if jj // per_quarter == j // per_quarter]
        hit = _check(view, whites, taken, (y, x), near, white_tiles[i, j], prints[i][1], tiles)
        if hit is not None and cover(spread, (0, 0), Pose(*hit[1], turns[hit[2]]), (card_mm[0] * k, card_mm[1] * k)) >= ON_SPREAD:
            owner, (x, y), jj, shown, n = hit
            taken[shown] = 255
            found.append(SpreadBack(owner, Pose(origin[0] + (x + 0.5) / k, origin[1] + (y + 0.5) / k,
                                                float(turns[jj] % 360)), n))
            for b in best:
                cv2.circle(b, (int(x), int(y)), int(SPREAD_STEP_MM * k), 0.0, -1)
        else:
            best[i, max(0, y - LOCAL_PX):y + LOCAL_PX + 1, max(0, x - LOCAL_PX):x + LOCAL_PX + 1] = 0  # looked there
    # A spread is laid along rows: a card lying across them on the evidence of two tiles only is
    # more likely two neighbours' halves seen as one.
    family = [round(((b.pose.angle - main) % 180) / 90) % 2 for b in found]
    along = int(sum(family) * 2 > len(family))
    if family.count(1 - along) * 3 < family.count(along):
        found = [b for b, f in zip(found, family) if f == along or b.tiles >= 3]
    return found


def _whites(img: np.ndarray) -> np.ndarray:
    """The white of a back's print (balls, lettering) in any colour of back: the least of B, G, R."""
    return np.ascontiguousarray(img.min(axis=2))


class _Correlator:
    """cv2.TM_CCOEFF_NORMED of many same-sized tiles over one picture, the picture's own window
    sums worked out once per tile size: four times less work per tile than asking OpenCV anew."""

    def __init__(self, img: np.ndarray):
        self.img = img.astype(np.float32)
        self.std: dict[tuple[int, int], np.ndarray] = {}  # window sd of the picture, per tile size

    def __call__(self, tile: np.ndarray) -> np.ndarray:
        th, tw = tile.shape[:2]
        if (th, tw) not in self.std:
            ones = np.ones((th, tw), np.float32)
            s1 = cv2.matchTemplate(self.img, ones, cv2.TM_CCORR)
            s2 = cv2.matchTemplate(self.img * self.img, ones, cv2.TM_CCORR)
            self.std[th, tw] = np.sqrt(np.maximum(s2 - s1 * s1 / (th * tw), 0))
        t = tile.astype(np.float32)
        t -= t.mean()
        norm = self.std[th, tw] * float(np.sqrt((t * t).sum()))
        return np.where(norm > 1e-3, cv2.matchTemplate(self.img, t, cv2.TM_CCORR) / np.maximum(norm, 1e-3), 0)


_NEIGHBOURS = np.ones((3, 3), np.uint8)


def _loose(r: np.ndarray) -> np.ndarray:
    """Tile correlations, each tile allowed a pixel (2 mm) off its place in the card: small turns,
    the lens and rounding move tiles apart by that much, and a busy print's correlation is sharp."""
    return cv2.dilate(r, _NEIGHBOURS)


def _prints(backs: dict[str, np.ndarray]) -> list[tuple[np.ndarray, list[str]]]:
    """Players' backs grouped by their print: a box's backs share one print in four colours, so the
    print finds a card and the colour tells whose it is."""
    groups: list[tuple[np.ndarray, list[str]]] = []
    for p, back in backs.items():
        g = _whites(back)
        for rep, members in groups:
            if max(float(cv2.matchTemplate(rep, t, cv2.TM_CCOEFF_NORMED)[0, 0]) for t in (g, g[::-1, ::-1].copy())) >= SAME_PRINT:
                members.append(p)
                break
        else:
            groups.append((g, [p]))
    return groups


def _tile_hits(img, taken, centre, tiles, threshold: float, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """For each shift of the card by up to `reach` px: which of its tiles match (each allowed a
    pixel more, see `_loose`) on parts no card found before has taken; and their correlations."""
    y, x = centre
    h, w = img.shape[:2]
    R = reach
    oks, vals = [], []
    for tile, (ox, oy) in tiles:
        ty, tx = y - oy - R, x - ox - R
        th, tw = tile.shape[:2]
        if ty < 1 or tx < 1 or ty + th + 2 * R + 1 > h or tx + tw + 2 * R + 1 > w:
            oks.append(np.zeros((2 * R + 1, 2 * R + 1), bool))
            vals.append(np.zeros((2 * R + 1, 2 * R + 1), np.float32))
            continue
        r = _loose(cv2.matchTemplate(img[ty - 1:ty + th + 2 * R + 1, tx - 1:tx + tw + 2 * R + 1], tile,
                                     cv2.TM_CCOEFF_NORMED))[1:-1, 1:-1]
        ok = r >= threshold
        window = taken[ty:ty + th + 2 * R, tx:tx + tw + 2 * R]
        if ok.any() and window.any():
            ok &= cv2.blur(window, (tw, th), anchor=(0, 0),
                           borderType=cv2.BORDER_CONSTANT)[:2 * R + 1, :2 * R + 1] <= FREE_SHARE * 255
        oks.append(ok)
        vals.append(r)
    return np.array(oks), np.array(vals)


def _check(view, whites, taken, centre, near, white_tiles, members, tiles):
    """Is there a card where its print was found? Its free tiles that show the print's whites say
    where to look; their colour says whose back it is (the nearest enrolled back's colour, clearly
    nearer than any other of that print, never guessed); that player's coloured tiles, the place
    refined by a pixel or two and the turn by a step, must show too (at least two). Returns
    (player, (x, y), turn index, shown mask, tiles shown) or None."""
    y, x = centre
    oks, _ = _tile_hits(whites, taken, centre, white_tiles, TILE_MATCH, 0)
    on = oks[:, 0, 0]
    if on.sum() < 2:
        return None
    # Each player of the print: do their coloured tiles show here (the place refined by a pixel or
    # two, the turn by a step)? Of those that do, whose colour is it, judged on the tiles that show.
    shows = {}
    for jj in near:
        most = 0
        for q in members:
            oks, vals = _tile_hits(view, taken, centre, tiles[q, jj], TILE_MATCH, LOCAL_PX)
            hits = oks.sum(axis=0)
            most = max(most, int(hits.max()))
            score = hits + (vals * oks).sum(axis=0) / np.maximum(hits, 1) / 10
            dy, dx = np.unravel_index(int(np.argmax(score)), score.shape)
            if hits[dy, dx] >= 2:
                shows[q] = max(shows.get(q, (0.0,)), (float(score[dy, dx]), jj, y + dy - LOCAL_PX, x + dx - LOCAL_PX,
                                                     oks[:, dy, dx].copy()), key=lambda v: v[0])
        if shows or most == 0:
            break  # the print's own turn first: mostly right (and nothing of it at all: no card)
    if not shows:
        return None
    q0 = max(shows, key=lambda q: shows[q][0])
    _, j0, y0, x0, which = shows[q0]
    idx = [i for i, o in enumerate(which) if o]
    f = _shade(np.concatenate([view[y0 - oy:y0 - oy + t.shape[0], x0 - ox:x0 - ox + t.shape[1]].reshape(-1, 3)
                               for t, (ox, oy) in (tiles[q0, j0][i] for i in idx)]))
    d = {q: shade_distance(f, _shade(np.concatenate([tiles[q, j0][i][0].reshape(-1, 3) for i in idx]))) for q in members}
    p, _ = clear_nearest(d)
    if p not in shows:
        return None  # nobody's colour, or two players' about equally
    _, jp, yy, xx, which = shows[p]
    shown = np.zeros(taken.shape, bool)
    for (t, (ox, oy)), o in zip(tiles[p, jp], which):
        if o:
            shown[yy - oy:yy - oy + t.shape[0], xx - ox:xx - ox + t.shape[1]] = True
    return p, (xx, yy), jp, shown, int(which.sum())


def _unexplained(spread: np.ndarray, origin, found: list[SpreadBack], card_mm) -> list[SpreadBack]:
    """Parts of the spread among and beside the counted cards that none of them covers, each a
    good part of a card wide: backs of nobody enrolled (or too worn to match), reported as unknown.
    (Glare or a shadow on the cloth further out is no card.)"""
    corners = np.concatenate([b.pose.corners(card_mm) - origin for b in found]).astype(np.float32)
    near = np.zeros(spread.shape, np.uint8)
    cv2.fillConvexPoly(near, cv2.convexHull(corners).astype(np.int32), 1)
    grow = int(card_mm[0] / 2)
    near = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    rest = spread.astype(np.uint8) & near
    for b in found:
        cv2.fillConvexPoly(rest, (b.pose.corners(card_mm) - origin).astype(np.int32), 0)
    side = int(card_mm[0] * 0.4)  # slivers between counted cards are no card
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((side, side), np.uint8))
    n, _, stats, cents = cv2.connectedComponentsWithStats(rest)
    area = card_mm[0] * card_mm[1]
    out = []
    for k in range(1, n):
        cards = int(round(stats[k, cv2.CC_STAT_AREA] / (0.6 * area)))
        out += [SpreadBack(None, Pose(origin[0] + cents[k][0], origin[1] + cents[k][1], 0.0), 0) for _ in range(cards)]
    return out


def backs_in_spread(top: np.ndarray, off_cloth: np.ndarray, backs: dict[str, np.ndarray], card_mm,
                    centre: np.ndarray | None = None) -> list[SpreadBack]:
    """The backs of a face-down spread, from a 1 px/mm top view of the table and what in it is
    not cloth: the spread is what is card-sized or bigger and lies in the `centre` (the table
    outside the players' zones, all of it if None). A big spread may reach into a zone: its
    backs there count too, but only in the centre is bare spread taken for backs nobody enrolled
    (a zone holds its player's face-up fan)."""
    mask = cv2.morphologyEx(off_cloth.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    # a back the colour of the cloth (or in dim light) leaves holes in what is not cloth: the spread
    # is its closed outline
    r = int(card_mm[0] * 0.6)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask)
    in_centre = lab if centre is None else np.where(centre, lab, 0)
    area = np.bincount(in_centre.ravel(), minlength=n)
    big = [k for k in range(1, n) if area[k] >= 0.4 * card_mm[0] * card_mm[1]]
    m = int(np.hypot(*card_mm) / 2) + 2  # room for the whole of every card at a spread's rim
    found = []
    for c in big:
        x0, y0 = max(0, stats[c, 0] - m), max(0, stats[c, 1] - m)
        x1, y1 = stats[c, 0] + stats[c, 2] + m, stats[c, 1] + stats[c, 3] + m
        part = lab[y0:y1, x0:x1] == c
        seen = find_backs(np.ascontiguousarray(top[y0:y1, x0:x1]), (x0, y0), part, backs, card_mm)
        if seen:  # something of no enrolled back at all (a phone, a shadow) is not a spread
            bare = part if centre is None else part & centre[y0:y1, x0:x1]
            found += seen + _unexplained(bare, (x0, y0), seen, card_mm)
    return found


def count_backs(found: list[SpreadBack]) -> Counter:
    return Counter(b.owner or "unknown" for b in found)


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
    peaks = [i for i in range(len(face)) if face[i] >= FAN_FACE and face[i] >= face[max(0, i - 2):i + 3].max()]
    # a window a little right of a card's edge still sees part of its numeral (the right half of
    # an 8 reads as a 3): of numerals closer than a fan's step, the left-most is the card's own
    numbers, last = [], -1e9
    for i in peaks:
        if us[i] - last >= FAN_STEP_MIN_MM:
            numbers.append(int(prob[i, 1:].argmax()) + 1)
            last = us[i]
    return numbers
