"""Arms over the table: whose seat each part of a change that reaches in over the table's edge
belongs to (the seat map), and the recent history of every arm, from which a settled change
learns which arms covered it, when, and when each let go (its arm traces).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.geometry.zones import TableLayout

DEFAULTS = DetectConfig()
NEVER = -10**6  # a frame long before any
LYING_KEPT = 64  # arm blobs whose seats are kept (a frame has a few): see `SeatMapper.seat_part`


@dataclass
class ArmTrace:
    seat: int  # index into layout.seats
    first: int  # first frame this seat's arm covered the region
    last: int  # last frame it covered the region
    peak: float  # the largest share of the region it covered
    cover: np.ndarray  # share of the region it covered, per frame of history
    frames: np.ndarray  # ... the frame of each (a live camera's dropped frames leave their numbers out)
    overshoot: float = 0.0  # mm the arm reached beyond the region's far side when it covered it most
    let_go: int = -1  # the last frame its hand lay still beside the region before it withdrew
    arrived_share: float = DEFAULTS.arrived_share  # see `arrived`

    def arrived(self) -> int:
        """The frame its hand came to rest on the region: coverage first reached most of its peak
        (a card held in the hand is part of the arm, so this is when the card got there)."""
        return int(self.frames[int(np.argmax(self.cover >= self.arrived_share * self.peak))])

    def covered(self, first: int, last: int) -> np.ndarray:
        """Its share of the region in each frame of history from `first` to `last`."""
        return self.cover[(self.frames >= first) & (self.frames <= last)]


def _colour_bins(pixels: np.ndarray) -> np.ndarray:
    """BGR pixels (N, 3) -> one of 8x8x8 colour bins."""
    p = pixels.astype(np.int32) >> 5
    return p[:, 0] * 64 + p[:, 1] * 8 + p[:, 2]


def blobs(mask: np.ndarray):
    """`cv2.connectedComponentsWithStats` (8-connected) of a uint8 mask, with 16-bit labels where
    no more than 65535 blobs fit in it (a third of the time of 32-bit ones on the low view; past
    that OpenCV would fail, not wrap)."""
    h, w = mask.shape
    ltype = cv2.CV_16U if ((h + 1) // 2) * ((w + 1) // 2) < 65536 else cv2.CV_32S
    return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)


def edge_band(shape: tuple[int, int], px: int) -> np.ndarray:
    """The low-res pixels along the table's edge (`px` deep), where arms reach in."""
    border = np.zeros(shape, bool)
    border[:px, :] = border[-px:, :] = border[:, :px] = border[:, -px:] = True
    return border


class SeatMapper:
    """Which seat's arm each pixel of a blob is. Remembers each seat's arm colours and loose hands."""

    def __init__(self, layout: TableLayout, shape: tuple[int, int], cfg: DetectConfig = DEFAULTS):
        self.layout, self.cfg = layout, cfg
        self.shoulders = shoulders(layout.seats, cfg.arm_body_mm)  # fixed for the table: not per arm, per frame
        h, w = shape
        self.border = edge_band(shape, cfg.edge_band_px)
        self.loose = np.full((h, w), -1, np.int8)  # hands cut off from their arms, as last given to a seat
        self.loose_at = np.full((h, w), NEVER, np.int32)  # and when
        # each seat's arm colours (sleeve, skin), learnt from arms that are alone on the table;
        # they tell two arms apart where they touch or cross
        self.arm_colours = np.zeros((len(layout.seats), 512), np.float32)
        # arm blobs by window and shape: what their shape alone says (`seat_part`, `_by_shape`)
        self._lying: dict[tuple, tuple[np.ndarray, int | None, list[int] | None]] = {}
        ys, xs = np.mgrid[0:h, 0:w]
        px_mm = ((xs + 0.5) / cfg.low_ppm, (ys + 0.5) / cfg.low_ppm)
        # each low-res pixel's depth into the table from each seat's edge (mm): fixed geometry
        self.depth = [self._depth_from(k, *px_mm) for k in range(len(layout.seats))]

    def _depth_from(self, seat: int, xs_mm, ys_mm):
        st = self.layout.seats[seat]
        return (xs_mm - st.edge_point[0]) * st.normal[0] + (ys_mm - st.edge_point[1]) * st.normal[1]

    def reach(self, seat_map: np.ndarray) -> dict[int, float]:
        """How far into the table each seat's arm reaches in this frame (mm from its edge)."""
        out = {}
        for seat in np.unique(seat_map[seat_map >= 0]):
            sel = seat_map == seat
            out[int(seat)] = float(self.depth[int(seat)][sel].max())
        return out

    def adopt(self, labels, moving: list[int], seat_map: np.ndarray, frame: int) -> None:
        """Blobs that move but reach no edge are hands whose wrist or sleeve is the cloth's colour
        (skin on wood, a green sleeve on green felt): where its forearm shows, the seat whose shoulder
        its line points back to (`_forearm_seat`); else the arm whose far end (not its side: arms
        cross) lies nearest it, when that is plain; with no arm's end near, the seat of the
        loose hand it overlaps, given in the last `loose_frames`."""
        cfg = self.cfg
        dist = {}
        for s in np.unique(seat_map[seat_map >= 0]):
            arm = seat_map == s
            depth = self.depth[int(s)]
            tip = arm & (depth >= depth[arm].max() - cfg.arm_tip_mm)  # where the wrist leaves the arm
            dist[int(s)] = cv2.distanceTransform((~tip).astype(np.uint8), cv2.DIST_L2, 3)
        for k in moving:
            comp = labels == k
            seat = self._forearm_seat(comp)  # its forearm shows the way back to its shoulder
            if seat is None:
                gaps = sorted((float(d[comp].min()), s) for s, d in dist.items())
                if gaps and gaps[0][0] <= cfg.hand_gap_px and (
                        len(gaps) == 1 or gaps[1][0] > cfg.hand_clear_ratio * gaps[0][0] + cfg.hand_clear_px):
                    seat = gaps[0][1]
            if seat is not None:
                seat_map[comp] = self.loose[comp] = seat
                self.loose_at[comp] = frame
                continue
            # no arm's end near: the loose hand that was here just before (remembered, not renewed:
            # loose_frames after its arm was last seen)
            before = np.unique(self.loose[comp & (frame - self.loose_at <= cfg.loose_frames)])
            if len(before) == 1:
                seat_map[comp] = before[0]

    def seat_part(self, labels, k, box, low: np.ndarray) -> np.ndarray:
        """Seat index for each pixel of an arm blob `k` (in its window `box` = x, y, w, h). Two arms
        that touch each other (or a change they pass over) form one blob; each part then belongs
        to the edge it hangs from, found by growing from each place the blob crosses the edge,
        along the blob; where the arms' colours tell clearly whose a pixel is, that wins."""
        x, y, w, h = box
        comp = labels[y:y + h, x:x + w] == k
        # what follows from the blob's shape alone is kept: an arm resting on the table lies the same
        # from frame to frame (a third of the arm blobs seen, on the samples and at twelve seats)
        key = (x, y, w, h, comp.tobytes())
        kept = self._lying.pop(key, None) or self._by_shape(comp, box)
        self._lying[key] = kept
        while len(self._lying) > LYING_KEPT:
            self._lying.pop(next(iter(self._lying)))
        out, alone, found = kept
        if alone is not None:
            self._learn_colours(alone, low[y:y + h, x:x + w][comp])
        if found is None or len(found) < 2:  # (one seat among the parts: nothing to tell apart by colour)
            return out
        out = out.copy()
        self._by_colour(out, comp, _colour_bins(low[y:y + h, x:x + w][comp]), found)
        return out

    def _by_shape(self, comp: np.ndarray, box) -> tuple[np.ndarray, int | None, list[int] | None]:
        """`seat_part` as the blob's shape gives it (read-only), the seat of an arm alone on the table
        (whose colours it shows), and, for a blob crossing the edge at several seats' places, the
        seats of its arms (whose colours then tell whose a pixel is)."""
        x, y, w, h = box
        edge = comp & self.border[y:y + h, x:x + w]
        n, lab = cv2.connectedComponents(edge.astype(np.uint8), connectivity=8)
        ppm = self.cfg.low_ppm
        seats, sums = [], []  # per place the blob crosses the edge: its nearest seat, its pixels' sums
        for i in range(1, n):
            ys, xs = np.nonzero(lab == i)
            sums.append((xs.sum(), ys.sum(), len(xs)))
            seats.append(self.layout.seats.index(self.layout.seat_at_edge(*_crossing(*sums[-1], x, y, ppm))))
        out = np.full(comp.shape, -1, np.int8)
        alone, found = None, None
        if len(set(seats)) == 1:  # one arm (its sleeve may cross in two places), or neighbours'
            crossing = _crossing(*np.sum(sums, axis=0), x, y, ppm)  # arms that touch where they cross
            arms = self._hanging(comp, box, crossing, seats[0], out)
            alone = arms[0] if len(arms) == 1 else None
        elif seats:
            # arms from several places on the edge: each part hangs from its own place, where again two
            # neighbours' arms may touch (a top arm joined to a bottom one by their hands is no reason to
            # give a neighbour's arm the crossing's nearest seat)
            grown = _grown_along(comp, lab, w + h)
            arms_seats: set[int] = set()
            for i, (seat, sum_) in enumerate(zip(seats, sums), start=1):
                arms_seats.update(self._hanging(grown == i, box, _crossing(*sum_, x, y, ppm), seat, out))
            found = sorted(arms_seats)
        out.setflags(write=False)
        return out, alone, found

    def _learn_colours(self, seat: int, pixels: np.ndarray) -> None:
        """An arm alone on the table (BGR `pixels`) teaches its seat's arm colours."""
        self.arm_colours[seat] *= self.cfg.arm_colour_decay
        self.arm_colours[seat] += np.bincount(_colour_bins(pixels), minlength=512)

    def _hanging(self, part: np.ndarray, box, crossing: tuple[float, float], nearest: int,
                 out: np.ndarray) -> list[int]:
        """Writes into `out` the seats of the arms in `part` (in its window `box`) that hang from one
        place on the edge (`crossing`, mm; `nearest`, the seat nearest it): each arm, where they have
        parted, points to its own player. Returns the seat of each arm."""
        x, y, w, h = box
        n, lab = self._arms_apart(part, box, nearest)
        if n <= 2:
            out[part] = seat = self._seat_along(part, (x, y), crossing, nearest)
            return [seat]
        grown = _grown_along(part, lab, w + h)
        seats = []
        for i in range(1, n):
            piece = grown == i
            out[piece] = seat = self._seat_along(piece, (x, y), crossing, nearest)
            seats.append(seat)
        return seats

    def _arms_apart(self, comp: np.ndarray, box, seat: int) -> tuple[int, np.ndarray | None]:
        """A blob (`comp` in its window `box`) that crosses the edge in one place, as the arms it holds
        where they have parted: two neighbours reaching in side by side touch where they cross the
        edge and part further in. Of the bands `arms_apart_mm` in from the edge (of `seat`), the first
        where most arms show apart, each across at least `arm_across_mm2`: (1 + arms, labels; None
        for a blob that reaches no band)."""
        x, y, w, h = box
        cfg = self.cfg
        depth = self.depth[seat][y:y + h, x:x + w]
        bands = sorted(cfg.arms_apart_mm)
        # depth is a plane: its corners bound the window (most blobs, hands at the edge, stop here)
        if max(depth[0, 0], depth[0, -1], depth[-1, 0], depth[-1, -1]) < bands[0] + cfg.arms_apart_band_mm:
            return 1, None
        deepest = float(depth[comp].max())
        reached = [d for d in bands if d + cfg.arms_apart_band_mm <= deepest]
        if not reached:
            return 1, None  # reaches in no further than a hand at the edge
        # all bands at once (they lie apart, so no piece spans two): each piece's band from its depth,
        # which (depth being a plane) is the depth at its centroid
        cut = np.zeros(comp.shape, np.uint8)
        for d in reached:
            cut |= cv2.inRange(depth, d, d + cfg.arms_apart_band_mm - 1e-6)
        cut &= comp.view(np.uint8)
        n, lab, stats, centroids = blobs(cut)
        area = stats[:, cv2.CC_STAT_AREA]
        ppm = cfg.low_ppm
        mean_depth = self._depth_from(seat, (centroids[:, 0] + x + 0.5) / ppm, (centroids[:, 1] + y + 0.5) / ppm)
        big = [k for k in range(1, n) if area[k] >= cfg.arm_across_mm2 * ppm ** 2]
        best: list[int] = []
        for d in reached:
            here = [k for k in big if d <= mean_depth[k] < d + cfg.arms_apart_band_mm]
            if len(here) > len(best):
                best = here
        relabel = np.zeros(n, np.int32)
        relabel[best] = np.arange(1, len(best) + 1)
        return len(best) + 1, relabel[lab]

    def _axis(self, comp: np.ndarray, origin) -> tuple[np.ndarray, np.ndarray] | None:
        """The centre (mm) of a blob (`comp`, in its window at `origin`) and the unit direction it lies
        along; None for a blob too short to point (`arm_axis_mm`: a hand at the edge) or as wide as long."""
        ys, xs = np.nonzero(comp)
        if len(xs) <= 2:
            return None
        ppm = self.cfg.low_ppm
        mx, my = _mean(xs), _mean(ys)
        dx, dy = (xs - mx) / ppm, (ys - my) / ppm
        mean = np.array([(mx + origin[0] + 0.5) / ppm, (my + origin[1] + 0.5) / ppm])
        # the points' covariance and its larger axis, worked out for 2 x 2 (numpy's cov and eigh
        # cost more than the rest of the arm's seat)
        sxx, syy, sxy = float(dx @ dx), float(dy @ dy), float(dx @ dy)
        half = np.hypot((sxx - syy) / 2.0, sxy)
        big, small = (sxx + syy) / 2.0 + half, (sxx + syy) / 2.0 - half
        along = np.array([big - syy, sxy]) if abs(sxy) > 1e-12 else np.array([1.0, 0.0] if sxx >= syy else [0.0, 1.0])
        along /= np.hypot(*along)
        spread = dx * along[0] + dy * along[1]
        if np.ptp(spread) < self.cfg.arm_axis_mm or big < 4.0 * max(small, 1e-6 * (len(xs) - 1)):
            return None
        return mean, along

    def _seat_along(self, comp: np.ndarray, origin, crossing: tuple[float, float], nearest: int) -> int:
        """The seat of one arm (`comp`, in its window at `origin`), crossing the edge at `crossing` (mm):
        the seat whose player's shoulder the arm's line, drawn on out beyond the edge, passes nearest
        (`nearest_shoulder`). An arm too short to point (`arm_axis_mm`): `nearest`, the seat nearest
        where it crosses."""
        axis = self._axis(comp, origin)
        if axis is None:
            return nearest  # a hand at the edge, or a blob as wide as long: no direction
        mean, along = axis
        if np.dot(np.asarray(crossing) - mean, along) < 0:
            along = -along  # pointing out, towards the edge it crosses
        return nearest_shoulder(self.shoulders, np.asarray(crossing), along)

    def _forearm_seat(self, comp: np.ndarray) -> int | None:
        """A hand cut off from its arm (a sleeve the cloth's colour) whose forearm shows: the seat whose
        shoulder its line points back to, when one way along it passes a shoulder within
        `forearm_shoulder_mm` and plainly nearer than the other way does (`hand_clear_ratio`); else None."""
        axis = self._axis(comp, (0, 0))
        if axis is None:
            return None
        mean, along = axis
        (near, seat), (far, _) = sorted((float(g.min()), int(g.argmin())) for g in
                                        (shoulder_gaps(self.shoulders, mean, u) for u in (along, -along)))
        return seat if near <= self.cfg.forearm_shoulder_mm and far > self.cfg.hand_clear_ratio * near else None

    def _by_colour(self, out: np.ndarray, comp: np.ndarray, bins: np.ndarray, cands: list[int]) -> None:
        """Where the arms' colours tell clearly whose a pixel is, that wins over the path along the blob.
        One seat alone among the parts (the others' too small to be arms): nothing to tell apart."""
        if len(cands) < 2:
            return
        hist = self.arm_colours[cands]
        if (hist.sum(1) > self.cfg.arm_colour_min_px).all():
            like = hist[:, bins] / hist.sum(1, keepdims=True)  # (seats, pixels)
            order = np.argsort(-like, axis=0)
            best = like[order[0], np.arange(like.shape[1])]
            second = like[order[1], np.arange(like.shape[1])]
            sure = best > self.cfg.arm_colour_margin * second + 1e-4
            vals = out[comp]
            vals[sure] = np.array(cands, np.int8)[order[0][sure]]
            out[comp] = vals


def _crossing(sum_x, sum_y, count, x0: int, y0: int, ppm: float) -> tuple[float, float]:
    """Where (mm) pixels cross the edge, from their coordinates' sums (in a window at `x0`, `y0`):
    exactly `_mean`'s middle, and one place's sums add up to several places' middle."""
    return (sum_x / count + x0 + 0.5) / ppm, (sum_y / count + y0 + 0.5) / ppm


def _mean(ints: np.ndarray) -> float:
    """The mean of pixel coordinates: exactly numpy's `mean` (a sum of integers is exact), at a third
    of its cost (it runs for every arm, every frame)."""
    return ints.sum() / len(ints)


def shoulders(seats, body_mm: float) -> np.ndarray:
    """Where each seat's player's shoulder lies, (n, 2) mm: `body_mm` out beyond the table's edge
    from the seat's edge point."""
    return np.array([np.asarray(s.edge_point) - np.asarray(s.normal) * body_mm for s in seats], float)


def nearest_shoulder(shoulders: np.ndarray, crossing: np.ndarray, out: np.ndarray) -> int:
    """The index of the seat whose shoulder (`shoulders`) lies nearest the ray from `crossing` along
    `out` (unit, pointing away from the table). Not the seat whose direction from the table's centre
    is nearest a point out along the arm: round a long table the seats' directions crowd towards the
    corners, and a slanting arm from one seat passed through its neighbour's sector (tuning range,
    7-12 seats: 272 -> 348 of 539 plays to the right player)."""
    return int(np.argmin(shoulder_gaps(shoulders, crossing, out)))


def shoulder_gaps(shoulders: np.ndarray, start: np.ndarray, out: np.ndarray) -> np.ndarray:
    """How near (mm) the ray from `start` along `out` (unit) passes each shoulder."""
    v = shoulders - start
    t = np.maximum(0.0, v @ out)
    return np.hypot(*(v - t[:, None] * out).T)


def _grown_along(comp: np.ndarray, lab: np.ndarray, rounds: int) -> np.ndarray:
    """Each labelled seed of `lab` grown one pixel a round inside `comp` until it is filled (or
    stops growing): the label of the seed each pixel is reached from first."""
    grown = np.where(lab > 0, lab, 0).astype(np.uint16)  # (cv2 dilates 16-bit labels as they are)
    todo = comp & (grown == 0)
    kernel = np.ones((3, 3), np.uint8)
    for _ in range(rounds):
        spread = cv2.dilate(grown, kernel)
        new = todo & (spread > 0)
        if not new.any():
            break
        grown[new] = spread[new]
        todo &= ~new
    return grown.astype(np.int32)


class ArmHistory:
    """The last `history_s` of frames: per frame the arms' seat map, the motion, and how far
    each seat's arm reached in. Each entry remembers its frame (some frames may be skipped)."""

    def __init__(self, fps: float, cfg: DetectConfig = DEFAULTS):
        self.fps, self.cfg = fps, cfg
        n = int(cfg.history_s * fps)
        self.seats: deque[np.ndarray] = deque(maxlen=n)  # int8 seat index per pixel, -1 none
        self.motion: deque[np.ndarray] = deque(maxlen=n)
        self.frames: deque[int] = deque(maxlen=n)
        self.reach: deque[dict[int, float]] = deque(maxlen=n)  # seat -> how far in its arm reached, mm
        self._beside = np.ones((2 * cfg.beside_px + 1,) * 2, np.uint8)

    def push(self, index: int, seat_map: np.ndarray, motion: np.ndarray, reach: dict[int, float]) -> None:
        self.reach.append(reach)
        self.frames.append(index)
        self.seats.append(seat_map)
        self.motion.append(motion)

    def start(self, frame: int) -> int:
        """The frame the history begins at (`frame` while it is empty)."""
        return self.frames[0] if self.frames else frame

    def traces(self, mask: np.ndarray, box, accepted: np.ndarray, depth: list[np.ndarray]) -> list[ArmTrace]:
        """The arms that covered the region `mask` (low-res bool, bounding box `box` = x, y, w, h)
        since its place was last taken in (`accepted`: frame per pixel), by their last frame.
        `depth`: each seat's depth into the table per pixel."""
        x, y, w, h = box
        b = self.cfg.beside_px
        # the histories are looked at only in a window around the region (and beside it)
        win = (slice(max(0, y - b), y + h + b), slice(max(0, x - b), x + w + b))
        m = mask[win]
        region = m.sum()
        n = len(self.seats)
        frames = np.fromiter(self.frames, np.int64, n)
        covers: dict[int, np.ndarray] = {}
        taken_in = accepted[win][m]
        for i, seats in enumerate(self.seats):
            s = np.where(taken_in < self.frames[i], seats[win][m], -1)
            for seat in np.unique(s[s >= 0]):
                covers.setdefault(int(seat), np.zeros(n, np.float32))[i] = float((s == seat).sum()) / region
        # two arms over one place at once: which let go last (its card lies on top) shows in when
        # each began to withdraw; their coverage of the place cannot tell once they touch
        beside = cv2.dilate(m.astype(np.uint8), self._beside).astype(bool) & ~m
        arms = []
        for seat, cov in covers.items():
            idx = np.nonzero(cov)[0]
            peak_i = int(cov.argmax())
            far = float(depth[seat][win][m].max())
            reach = self.reach[peak_i].get(seat, far) if peak_i < len(self.reach) else far
            arms.append(ArmTrace(seat, int(frames[idx[0]]), int(frames[idx[-1]]), float(cov.max()), cov, frames,
                                 reach - far, self._let_go(seat, beside, win, int(idx[-1])), self.cfg.arrived_share))
        return sorted(arms, key=lambda a: a.last)

    def _let_go(self, seat: int, beside: np.ndarray, win, last_i: int) -> int:
        """The last frame (up to history entry `last_i`) the arm of `seat` lay still `beside` the region."""
        stillest, least = self.frames[last_i], 2.0
        for i in range(last_i, -1, -1):
            sel = beside & (self.seats[i][win] == seat)
            n = int(sel.sum())
            if not n:
                continue
            share = int((sel & self.motion[i][win]).sum()) / n
            if share < self.cfg.withdrawing:
                return self.frames[i]
            if share < least:
                stillest, least = self.frames[i], share
        return stillest  # it never lay still: the moment it moved least

    def still_over(self, mask: np.ndarray, first: int, last: int, share: float, seat: int | None = None) -> bool:
        """Did less than `share` of the region `mask` (low-res bool) move in every frame from
        `first` to `last` (those still in the history; none: no)? `seat`: the motion of another
        seat's arm over the region does not count (an arm passing over a hand that holds still),
        nor, in the frame after it was there, that of the place it uncovered."""
        n = max(int(mask.sum()), 1)
        seen, others_before = False, np.zeros_like(mask)
        for f, m, s in zip(self.frames, self.motion, self.seats):
            others = (s >= 0) & (s != seat) & mask if seat is not None else np.zeros_like(mask)
            counted = mask & ~others & ~others_before
            others_before = others
            if first <= f <= last:
                seen = True
                if int((m & counted).sum()) >= share * n:
                    return False
        return seen

    def arms_on_table(self, frame: int, last_motion: np.ndarray) -> bool:
        """Is any arm reaching over the table in the latest frame? A small change at the table's
        edge that has not moved for `edge_still_s` is no arm (a card nudged at the edge, a cuff
        left there); an arm resting on the table is bigger than `edge_small_mm2`."""
        if not self.seats:
            return False
        seats = self.seats[-1]
        if ((seats >= 0) & (frame - last_motion < self.cfg.edge_still_s * self.fps)).any():
            return True
        sizes = np.bincount(seats[seats >= 0].astype(np.intp), minlength=1)
        return float(sizes.max()) / self.cfg.low_ppm ** 2 > self.cfg.edge_small_mm2
