"""Reading the backs of a face-down spread (the end-of-round count).

Every player's cards carry one printed back, so each enrolled back (a crop at set-up) is
looked for as a template. A card of the spread may be mostly covered by its neighbours, so
the back is cut into tiles and matched tile by tile: a card counts where at least two of its
tiles show in place. Its owner is the player whose back those tiles match; spread that no
enrolled back explains is reported as unknown backs, never given to anyone.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.outlines import cover
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import clear_nearest, shade_distance, shade_of

@dataclass
class SpreadBack:
    owner: str | None  # None: a back no enrolled player's matches
    pose: Pose
    tiles: int  # how many of the back's tiles were seen in place
    # (x, y) mm of the pixels where those tiles showed (None: not kept, a card looked at again)
    shown: np.ndarray | None = field(default=None, compare=False, repr=False)


def _main_direction(view: np.ndarray, mask: np.ndarray) -> float:
    """The direction (mod 90 degrees) of the card edges in the spread, from its gradients."""
    g = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    mag = np.hypot(gx, gy)[mask]
    ang = (np.degrees(np.arctan2(gy, gx))[mask]) % 90.0
    hist = np.bincount(np.round(ang).astype(int) % 90, weights=mag, minlength=90)
    hist = np.convolve(np.concatenate([hist[-3:], hist, hist[:3]]), np.ones(7), "valid")
    return float(np.argmax(hist))


def _tiles(back: np.ndarray, turn: float, grid: tuple[int, int]):
    """The tiles of an upright back turned `turn` degrees clockwise: (tile image, offset of the
    card's centre from the tile's top-left corner)."""
    h, w = back.shape[:2]
    d = int(np.ceil(np.hypot(w, h))) + 2
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -turn, 1.0)
    m[:, 2] += (d / 2 - w / 2, d / 2 - h / 2)
    turned = cv2.warpAffine(back, m, (d, d), flags=cv2.INTER_LINEAR)
    nx, ny = grid
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
               card_mm, cfg: RecogniseConfig = RecogniseConfig()) -> list[SpreadBack]:
    """Every card back in a face-down spread. `view` is the table seen from above at 1 px/mm
    from `origin` (mm), `spread` marks the spread in it, `backs` the enrolled upright backs."""
    if not spread.any() or not backs:
        return []
    main = _main_direction(view, spread)
    k = cfg.match_ppm
    view = cv2.resize(view, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    whites = _whites(view)
    backs = {p: cv2.resize(b, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) for p, b in backs.items()}
    steps = np.arange(-cfg.turn_span_deg, cfg.turn_span_deg + 0.1, cfg.turn_step_deg)
    turns = [main + q + a for q in (0.0, 90.0, 180.0, 270.0) for a in steps]
    tiles = {(p, j): _tiles(b, t, cfg.tiles) for p, b in backs.items() for j, t in enumerate(turns)}
    size = view.shape[:2]
    spread = cv2.resize(spread.astype(np.uint8), (size[1], size[0]), interpolation=cv2.INTER_NEAREST)
    prints = _prints(backs, cfg.same_print)
    best, which, white_tiles = _print_scores(whites, prints, turns, cfg)
    rivals = _rivals(backs, prints)
    # Strongest first, each checked in colour. Each part of the picture shows one card only, so a
    # tile taken by a card found before does not count again (a print half-matched a little aside
    # is no card), and a card lies on the spread.
    taken = np.zeros(size, np.uint8)  # 255 where a card found before showed its tiles
    found: list[SpreadBack] = []
    per_quarter = len(steps)
    while True:
        i, y, x = np.unravel_index(int(np.argmax(best)), best.shape)
        if best[i, y, x] < 2 + cfg.pair_match / 10:  # two tiles at least, and two alone must match well
            break
        j = int(which[i, y, x])
        near = [jj for jj in (j, j - 1, j + 1) if jj // per_quarter == j // per_quarter]
        hit = _check(view, whites, taken, (y, x), near, white_tiles[i, j], prints[i][1], tiles, cfg)
        if hit is not None and cover(spread, (0, 0), Pose(*hit[1], turns[hit[2]]), (card_mm[0] * k, card_mm[1] * k)) >= cfg.on_spread:
            owner, (x, y), jj, mask, n, shade = hit
            taken[mask] = 255
            pose = Pose(origin[0] + (x + 0.5) / k, origin[1] + (y + 0.5) / k, float(turns[jj] % 360))
            part = (np.argwhere(mask)[:, ::-1] + 0.5) / k + origin  # (x, y) mm of the tiles it showed
            owner = _print_told(whites, SpreadBack(owner, pose, n, part), shade, rivals[owner], backs, origin, k,
                                card_mm, cfg)
            twin = next((m for m, other in enumerate(found)
                         if other.owner == owner and one_card(other.shown, part, other.pose, pose, card_mm, cfg)), None)
            if twin is None:
                found.append(SpreadBack(owner, pose, n, part))
            else:  # the same card again, a little aside along its edges: its tiles are added to the first
                found[twin] = replace(found[twin], tiles=found[twin].tiles + n,
                                      shown=np.concatenate([found[twin].shown, part]))
            for b in best:
                cv2.circle(b, (int(x), int(y)), int(cfg.spread_step_mm * k), 0.0, -1)
        else:
            lp = cfg.local_px
            best[i, max(0, y - lp):y + lp + 1, max(0, x - lp):x + lp + 1] = 0  # looked there
    # a print half-matched one tile aside (balls and bolts repeat) shows little of itself in smaller
    # tiles, and what it showed is the print of the card found beside it
    lying_across = set(_across_rows(found, main)[1:])  # doubted themselves: they explain nothing
    along = [b for m, b in enumerate(found) if m not in lying_across]
    found = [b for b in found if not _matched_aside(view, whites, b, along, backs, origin, k, card_mm, cfg)]
    # a find on two tiles that showed within cards found on more is what those cards left unmatched
    # (a tile of their print turned, a neighbour's edge across it), not a card of its own
    found = [b for b, within in zip(found, shown_within_surer(found, card_mm, cfg.within_surer)) if not within]
    # a card lying across the spread's rows on the evidence of two tiles: looked at again along them
    across = _across_rows(found, main)
    along = [j for j in range(len(turns)) if (j // per_quarter) % 2 != (across[0] if across else 0)]
    kept = []
    for m, b in enumerate(found):
        if m not in across[1:]:
            kept.append(b)
            continue
        free = taken.copy()  # its own tiles are free to be looked at again
        x_, y_ = np.round((b.shown - origin) * k - 0.5).astype(int).T
        free[y_, x_] = 0
        again = _turned_along(view, free, b, origin, k, along, turns, tiles, card_mm, cfg)
        if again is not None:
            kept.append(again)
    return kept


def _matched_aside(view, whites, b: SpreadBack, found: list[SpreadBack], backs, origin, k: float, card_mm,
                   cfg: RecogniseConfig) -> bool:
    """Is the find `b` no card, but a print matched aside? Found on few tiles (`fine_upto`), it shows
    fewer than `fine_sure` smaller tiles, and its tiles look like the back of a card found beside it
    (`shown_as` at least `tile_match`). (Few smaller tiles alone say little: a back with sparse balls
    has many plain ones.)"""
    if b.tiles > cfg.fine_upto or finer_tiles_shown(view, b, backs[b.owner], origin, k, cfg) >= cfg.fine_sure:
        return False
    reach = np.hypot(*card_mm)  # beyond this, two cards share no place
    return any(shown_as(whites, b, o, backs[o.owner], origin, k, card_mm, cfg.aside_cover) >= cfg.tile_match
               for o in found if o is not b and o.owner is not None
               and np.hypot(o.pose.x - b.pose.x, o.pose.y - b.pose.y) < reach)


def shown_as(whites: np.ndarray, b: SpreadBack, o: SpreadBack, back: np.ndarray, origin, k: float, card_mm,
             least_cover: float) -> float:
    """How well the places where find `b` showed its tiles look like find `o`'s back there: the
    normalised correlation of their whites (the best of a pixel aside), where `o` covers at least
    `least_cover` of them; -1 where it covers less. `whites` (the view's, `_whites`) and `back` are at
    `k` px per mm."""
    on_o = o.pose.to_card(b.shown)  # (across, along) mm from o's centre
    inside = (np.abs(on_o) <= np.divide(card_mm, 2)).all(axis=1)
    if not len(inside) or inside.mean() < least_cover:
        return -1.0
    h, w = back.shape[:2]
    bx = (on_o[inside, 0] * k + w / 2 - 0.5).astype(np.float32)[None]
    by = (on_o[inside, 1] * k + h / 2 - 0.5).astype(np.float32)[None]
    t = cv2.remap(_whites(back).astype(np.float32), bx, by, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
    t -= t.mean()
    x, y = np.round((b.shown[inside] - origin) * k - 0.5).astype(int).T
    H, W = whites.shape[:2]
    best = -1.0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            a = whites[np.clip(y + dy, 0, H - 1), np.clip(x + dx, 0, W - 1)].astype(np.float32)
            a -= a.mean()
            n = float(np.sqrt((a * a).sum() * (t * t).sum()))
            if n > 1e-3:
                best = max(best, float((a * t).sum()) / n)
    return best


def finer_tiles_shown(view: np.ndarray, b: SpreadBack, back: np.ndarray, origin, k: float,
                      cfg: RecogniseConfig = RecogniseConfig()) -> int:
    """How many of `back`'s smaller tiles (`fine_tiles`) show at the find `b` (the place refined by
    up to `local_px`), parts found before not excluded. `view` and `back` are at `k` px per mm.
    On the proving ground's tuning range, finds on two tiles that were a card showed three or more
    of twelve (365 of 370); those that were none mostly two or fewer (108 of 156)."""
    tiles = _tiles(back, b.pose.angle, cfg.fine_tiles)
    y, x = int((b.pose.y - origin[1]) * k), int((b.pose.x - origin[0]) * k)
    oks, _ = _tile_hits(view, np.zeros(view.shape[:2], np.uint8), (y, x), tiles, cfg.tile_match, cfg.local_px,
                        cfg.free_share)
    return int(oks.sum(axis=0).max())


def shown_within_surer(found: list[SpreadBack], card_mm, share: float) -> list[bool]:
    """For each find: did it show two tiles only, at least `share` of them within the outline of a
    card found on more tiles? (On the proving ground's tuning range 32 such finds were no card and
    2 were.)"""
    out = []
    for b in found:
        if b.tiles != 2 or b.shown is None or not len(b.shown):
            out.append(False)
            continue
        inside = np.zeros(len(b.shown), bool)
        for o in found:
            if o.tiles > b.tiles:
                inside |= (np.abs(o.pose.to_card(b.shown)) <= np.divide(card_mm, 2)).all(axis=1)
        out.append(bool(inside.mean() >= share))
    return out


def one_card(seen_a: np.ndarray, seen_b: np.ndarray, a: Pose, b: Pose, card_mm,
             cfg: RecogniseConfig = RecogniseConfig()) -> bool:
    """Are two finds of one owner's back, at poses `a` and `b`, one card? Tiles along one straight
    edge of a back (one column of them, or one row) match as well a little further along that
    edge: so when each find showed tiles of one line only, the second lies along that line from
    the first (not beside it), and the places where their tiles showed (`seen_a`, `seen_b`, (x, y)
    mm) fit in one card together, it is the first found again (two cards would reach further)."""
    if a.turn_to(b) > cfg.turn_span_deg:  # (a back turned half round is alike)
        return False
    tile = 0.85 * min(card_mm[0] / cfg.tiles[0], card_mm[1] / cfg.tiles[1])  # as `_tiles` cuts them
    pa, pb = a.to_card(seen_a), a.to_card(seen_b)  # across the card, along it
    offset = a.to_card([(b.x, b.y)])[0]
    both = np.concatenate([pa, pb])
    for line, other in ((1, 0), (0, 1)):  # a column (along the card), a row (across it)
        if max(np.ptp(pa[:, other]), np.ptp(pb[:, other])) <= tile * (1 + cfg.one_card_slack) and \
                abs(offset[other]) <= tile / 2 and np.ptp(both[:, line]) <= card_mm[line] * (1 + cfg.one_card_slack):
            return True
    return False


def _across_rows(found: list[SpreadBack], main: float) -> list[int]:
    """A spread is laid along rows: a card lying across them on the evidence of two tiles only is
    more likely two neighbours' halves seen as one, or a card along them found at the wrong turn.
    Returns [the across family (0: along `main`, 1: a quarter turned), index of each such card...];
    [] when the spread has no clear rows."""
    family = [round(((b.pose.angle - main) % 180) / 90) % 2 for b in found]
    along = int(sum(family) * 2 > len(family))
    if family.count(1 - along) * 3 >= family.count(along):
        return []
    return [1 - along] + [m for m, (b, f) in enumerate(zip(found, family)) if f != along and b.tiles < 3]


def _turned_along(view, taken, b: SpreadBack, origin, k: float, along: list[int], turns, tiles, card_mm,
                  cfg: RecogniseConfig) -> SpreadBack | None:
    """The card `b` found across the rows, looked for again along them round the same place (its
    centre may lie up to half the difference of a card's sides away), in its owner's colours: at
    least two tiles must show (two alone matching well); None: no card along the rows there."""
    reach = int(np.ceil(abs(card_mm[1] - card_mm[0]) / 2 * k)) + cfg.local_px
    y, x = int((b.pose.y - origin[1]) * k), int((b.pose.x - origin[0]) * k)
    best = None
    for j in along:
        oks, vals = _tile_hits(view, taken, (y, x), tiles[b.owner, j], cfg.tile_match, reach, cfg.free_share)
        hits = oks.sum(axis=0)
        mean = (vals * oks).sum(axis=0) / np.maximum(hits, 1)
        ok = (hits >= 3) | ((hits == 2) & (mean >= cfg.pair_match))
        if not ok.any():
            continue
        score = np.where(ok, hits + mean / 10, 0)
        dy, dx = np.unravel_index(int(np.argmax(score)), score.shape)
        if best is None or score[dy, dx] > best[0]:
            best = (float(score[dy, dx]), j, y + dy - reach, x + dx - reach, int(hits[dy, dx]))
    if best is None:
        return None
    _, j, yy, xx, n = best
    return SpreadBack(b.owner, Pose(origin[0] + (xx + 0.5) / k, origin[1] + (yy + 0.5) / k, float(turns[j] % 360)), n)


def _print_scores(whites: np.ndarray, prints, turns, cfg: RecogniseConfig):
    """Where might a card of each print lie: per print and place, its tiles in place (+ their mean
    correlation / 10) at the best turn, and that turn's index; and each print's tiles per turn.
    The print's white balls and lettering are the same in every colour."""
    size = whites.shape[:2]
    best = np.zeros((len(prints), *size), np.float32)
    which = np.zeros((len(prints), *size), np.int16)
    white_tiles = {}
    correlate = _Correlator(whites)
    for i, (print_, _) in enumerate(prints):
        for j, turn in enumerate(turns):
            seen = np.zeros(size, np.float32)
            strength = np.zeros(size, np.float32)
            white_tiles[i, j] = _tiles(print_, turn, cfg.tiles)
            for tile, (ox, oy) in white_tiles[i, j]:
                r = _loose(correlate(tile))
                # r[y, x]: tile's corner at (x, y), so the card's centre at (x + ox, y + oy)
                x0, y0 = max(0, ox), max(0, oy)
                x1, y1 = min(size[1], r.shape[1] + ox), min(size[0], r.shape[0] + oy)
                part = r[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
                hit = part >= cfg.tile_match
                seen[y0:y1, x0:x1] += hit
                strength[y0:y1, x0:x1] += np.where(hit, part, 0)
            score = seen + strength / np.maximum(seen, 1) / 10
            better = score > best[i]
            best[i][better] = score[better]
            which[i][better] = j
    return best, which, white_tiles


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


def _prints(backs: dict[str, np.ndarray], same_print: float) -> list[tuple[np.ndarray, list[str]]]:
    """Players' backs grouped by their print: a box's backs share one print in four colours, so the
    print finds a card and the colour tells whose it is."""
    groups: list[tuple[np.ndarray, list[str]]] = []
    for p, back in backs.items():
        g = _whites(back)
        for rep, members in groups:
            if max(float(cv2.matchTemplate(rep, t, cv2.TM_CCOEFF_NORMED)[0, 0]) for t in (g, g[::-1, ::-1].copy())) >= same_print:
                members.append(p)
                break
        else:
            groups.append((g, [p]))
    return groups


def _tile_hits(img, taken, centre, tiles, threshold: float, reach: int, free_share: float) -> tuple[np.ndarray, np.ndarray]:
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
                           borderType=cv2.BORDER_CONSTANT)[:2 * R + 1, :2 * R + 1] <= free_share * 255
        oks.append(ok)
        vals.append(r)
    return np.array(oks), np.array(vals)


def _check(view, whites, taken, centre, near, white_tiles, members, tiles, cfg: RecogniseConfig):
    """Is there a card where its print was found? Its free tiles that show the print's whites say
    where to look; their colour says whose back it is (the nearest enrolled back's colour, clearly
    nearer than any other of that print, never guessed); that player's coloured tiles, the place
    refined by a pixel or two and the turn by a step, must show too (at least two). Returns
    (player, (x, y), turn index, shown mask, tiles shown, the colour of the tiles shown) or None."""
    y, x = centre
    oks, _ = _tile_hits(whites, taken, centre, white_tiles, cfg.tile_match, 0, cfg.free_share)
    on = oks[:, 0, 0]
    if on.sum() < 2:
        return None
    # Each player of the print: do their coloured tiles show here (the place refined by a pixel or
    # two, the turn by a step)? Of those that do, whose colour is it, judged on the tiles that show.
    shows = {}
    r = cfg.local_px
    for jj in near:
        most = 0
        for q in members:
            oks, vals = _tile_hits(view, taken, centre, tiles[q, jj], cfg.tile_match, r, cfg.free_share)
            hits = oks.sum(axis=0)
            most = max(most, int(hits.max()))
            score = hits + (vals * oks).sum(axis=0) / np.maximum(hits, 1) / 10
            dy, dx = np.unravel_index(int(np.argmax(score)), score.shape)
            if hits[dy, dx] >= 2:
                shows[q] = max(shows.get(q, (0.0,)), (float(score[dy, dx]), jj, y + dy - r, x + dx - r,
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
    p, _ = clear_nearest(d, cfg.owner_max, cfg.owner_lead)
    if p not in shows:
        return None  # nobody's colour, or two players' about equally
    _, jp, yy, xx, which = shows[p]
    shown = np.zeros(taken.shape, bool)
    for (t, (ox, oy)), o in zip(tiles[p, jp], which):
        if o:
            shown[yy - oy:yy - oy + t.shape[0], xx - ox:xx - ox + t.shape[1]] = True
    return p, (xx, yy), jp, shown, int(which.sum()), f


def _rivals(backs: dict[str, np.ndarray], prints) -> dict[str, dict[str, np.ndarray]]:
    """Per player: the players of other prints, with the colour of their whole back (`_shade`). A card
    is found by its print and its owner told by colour among that print's players only; colours
    repeat between boxes, so a card of another print alike in colour may be taken for it."""
    shade = {p: _shade(b) for p, b in backs.items()}
    group = {p: i for i, (_, members) in enumerate(prints) for p in members}
    return {p: {q: shade[q] for q in backs if group[q] != group[p]} | {p: shade[p]} for p in backs}


def _print_told(whites, b: SpreadBack, shade: np.ndarray, rivals: dict[str, np.ndarray], backs, origin, k: float,
                card_mm, cfg: RecogniseConfig) -> str:
    """Whose is the card `b`, found by its owner's print? Its colour (`shade`, of the tiles shown) as
    near another print's player (`rivals`: theirs and the owner's colours, `_rivals`) as its owner's
    leaves it to the print: the player whose print fits the places it showed best (either way up),
    by `rival_print_lead`; else the owner found."""
    own = shade_distance(shade, rivals[b.owner])
    alike = [q for q in rivals if q != b.owner and clear_nearest(
        {b.owner: own, q: shade_distance(shade, rivals[q])}, cfg.owner_max, cfg.owner_lead)[0] != b.owner]
    if not alike:
        return b.owner

    def fit(q: str) -> float:
        return max(shown_as(whites, b, SpreadBack(q, replace(b.pose, angle=b.pose.angle + turn), 0), backs[q],
                            origin, k, card_mm, 0.0) for turn in (0.0, 180.0))

    mine = fit(b.owner)
    q, theirs = max(((q, fit(q)) for q in alike), key=lambda qv: qv[1])
    return q if theirs >= mine + cfg.rival_print_lead else b.owner


def _unexplained(spread: np.ndarray, origin, found: list[SpreadBack], card_mm, cfg: RecogniseConfig) -> list[SpreadBack]:
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
    side = int(card_mm[0] * cfg.sliver_share)  # slivers between counted cards are no card
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((side, side), np.uint8))
    n, _, stats, cents = cv2.connectedComponentsWithStats(rest)
    area = card_mm[0] * card_mm[1]
    out = []
    for k in range(1, n):
        cards = int(round(stats[k, cv2.CC_STAT_AREA] / (cfg.unknown_card_share * area)))
        out += [SpreadBack(None, Pose(origin[0] + cents[k][0], origin[1] + cents[k][1], 0.0), 0) for _ in range(cards)]
    return out


def backs_in_spread(top: np.ndarray, off_cloth: np.ndarray, backs: dict[str, np.ndarray], card_mm,
                    centre: np.ndarray | None = None, cfg: RecogniseConfig = RecogniseConfig()) -> list[SpreadBack]:
    """The backs of a face-down spread, from a 1 px/mm top view of the table and what in it is
    not cloth: the spread is what is card-sized or bigger and lies in the `centre` (the table
    outside the players' zones, all of it if None). A big spread may reach into a zone: its
    backs there count too, but only in the centre is bare spread taken for backs nobody enrolled
    (a zone holds its player's face-up fan)."""
    mask = cv2.morphologyEx(off_cloth.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    # a back the colour of the cloth (or in dim light) leaves holes in what is not cloth: the spread
    # is its closed outline
    r = int(card_mm[0] * cfg.spread_close_share)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask)
    in_centre = lab if centre is None else np.where(centre, lab, 0)
    area = np.bincount(in_centre.ravel(), minlength=n)
    big = [k for k in range(1, n) if area[k] >= cfg.spread_least_share * card_mm[0] * card_mm[1]]
    m = int(np.hypot(*card_mm) / 2) + 2  # room for the whole of every card at a spread's rim
    found = []
    for c in big:
        x0, y0 = max(0, stats[c, 0] - m), max(0, stats[c, 1] - m)
        x1, y1 = stats[c, 0] + stats[c, 2] + m, stats[c, 1] + stats[c, 3] + m
        part = lab[y0:y1, x0:x1] == c
        seen = find_backs(np.ascontiguousarray(top[y0:y1, x0:x1]), (x0, y0), part, backs, card_mm, cfg)
        if seen:  # something of no enrolled back at all (a phone, a shadow) is not a spread
            bare = part if centre is None else part & centre[y0:y1, x0:x1]
            found += seen + _unexplained(bare, (x0, y0), seen, card_mm, cfg)
    return found

